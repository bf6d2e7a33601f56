//go:build !wasip1

package sim

// Outside wasip1 there is no simulator host, so every call takes its
// documented fallback.
func hosted() bool { return false }

func hostFail(string)                                                  {}
func hostProperty(uint32, bool, string, []any)                         {}
func hostEvent(string, []byte)                                         {}
func hostBudget(n int) int                                             { return n }
func hostListen(string) (int, uint32)                                  { return -1, errnoNotSupported }
func hostDial(string) (int, uint32)                                    { return -1, errnoNotSupported }
func hostSockStatus(uintptr) uint32                                    { return errnoNotSupported }
func hostPropertyRaw(uint32, bool, string, []byte)                     {}
func hostPropertyMargin(uint32, bool, string, []byte, float64)         {}
func hostPropertyMarginInt(uint32, bool, string, []byte, bool, uint64) {}
func hostBuggify(string, float64) bool                                 { return false }
func hostQuietFor(int64)                                               {}
func hostSetupComplete()                                               {}
func hostHistoryInvoke(int, string, string, []byte) uint64             { return 0 }
func hostHistoryComplete(uint64, uint32, []byte)                       {}
func hostListenPacket(string) (int, uint32)                            { return -1, errnoNotSupported }
func hostSendTo(uintptr, string, []byte) uint32                        { return errnoNotSupported }
func hostRecvFrom(uintptr, []byte) (int, string, uint32)               { return 0, "", errnoNotSupported }
func hostSockAddrs(uintptr) (string, string, uint32)                   { return "", "", errnoNotSupported }
