// Package sim is the guest-side SDK of sf: the calls a program makes to the
// simulator (properties, events, randomness, sockets). Every function also
// works outside the simulator, with the fallback its comment describes.
package sim
