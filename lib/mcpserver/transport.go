package mcpserver

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// LineBytesMaxIn bounds one line a client sends: 16 MiB, the SDK's own
// bound. A longer line is skipped to its newline, unread, and answered with
// a parse error.
const LineBytesMaxIn = 16 << 20

// Transport is the MCP transport of sf-mcp: newline-delimited JSON-RPC on
// a reader and a writer, as the SDK's stdio transport, with two
// differences. A line that is not a JSON-RPC 2.0 message is answered with
// a JSON-RPC error (-32700 for what is not JSON, -32600 for JSON that is no
// valid request) and the server reads on, where the SDK's transport ends
// the session. And at the end of the input, the requests already read are
// answered before the connection closes, so that a client that writes its
// requests and closes its end (`printf ... | sf-mcp`) gets every answer.
type Transport struct {
	In  io.Reader
	Out io.Writer
}

// Connect returns the connection.
func (t *Transport) Connect(context.Context) (mcp.Connection, error) {
	c := &lineConn{
		in:      bufio.NewReaderSize(t.In, 64<<10),
		out:     t.Out,
		pending: map[jsonrpc.ID]bool{},
		closed:  make(chan struct{}),
		lines:   make(chan lineOrErr),
	}
	c.idle = sync.NewCond(&c.mu)
	go c.readLines()
	return c, nil
}

type lineConn struct {
	in  *bufio.Reader
	out io.Writer

	writeMu sync.Mutex // one line at a time on out

	mu      sync.Mutex
	idle    *sync.Cond          // signalled when pending shrinks or the connection closes
	pending map[jsonrpc.ID]bool // requests read and not yet answered
	isShut  bool                // Close was called

	closeOnce sync.Once
	closed    chan struct{}
	lines     chan lineOrErr
}

type lineOrErr struct {
	line    []byte
	tooLong bool
	err     error
}

// readLines reads the input a line at a time, in a goroutine of its own so
// that Close can unblock Read. A line longer than LineBytesMaxIn is
// skipped without being held.
func (c *lineConn) readLines() {
	for {
		var line []byte
		tooLong := false
		var err error
		for {
			var chunk []byte
			chunk, err = c.in.ReadSlice('\n')
			if !tooLong {
				if len(line)+len(chunk) > LineBytesMaxIn+1 {
					tooLong, line = true, nil
				} else {
					line = append(line, chunk...)
				}
			}
			if err != bufio.ErrBufferFull {
				break
			}
		}
		if len(line) > 0 || tooLong {
			select {
			case c.lines <- lineOrErr{line: line, tooLong: tooLong}:
			case <-c.closed:
				return
			}
		}
		if err != nil {
			select {
			case c.lines <- lineOrErr{err: err}:
			case <-c.closed:
			}
			return
		}
	}
}

// Read returns the next message. A malformed line is answered here and
// skipped. At the end of the input it waits until every request it
// returned has been answered, then reports the end.
func (c *lineConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	for {
		var l lineOrErr
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-c.closed:
			return nil, io.EOF
		case l = <-c.lines:
		}
		if l.err != nil {
			c.drain()
			return nil, l.err
		}
		msg, rpcErr := decodeLine(l)
		if rpcErr != nil {
			if err := c.writeLine(rpcErr); err != nil {
				return nil, err
			}
			continue
		}
		if req, ok := msg.(*jsonrpc.Request); ok && req.ID.IsValid() {
			c.mu.Lock()
			c.pending[req.ID] = true
			c.mu.Unlock()
		}
		return msg, nil
	}
}

// drain waits until no request is waiting for its answer, or the
// connection closes.
func (c *lineConn) drain() {
	c.mu.Lock()
	defer c.mu.Unlock()
	for len(c.pending) > 0 && !c.isShut {
		c.idle.Wait()
	}
}

// errorResponse is a JSON-RPC error response written by the transport
// itself, for a line the SDK never sees.
type errorResponse struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Error   jsonrpc.Error   `json:"error"`
}

// decodeLine decodes one line into a message, or returns the error
// response that answers it.
func decodeLine(l lineOrErr) (jsonrpc.Message, *errorResponse) {
	fail := func(id json.RawMessage, code int64, format string, args ...any) *errorResponse {
		if id == nil {
			id = json.RawMessage("null")
		}
		return &errorResponse{JSONRPC: "2.0", ID: id, Error: jsonrpc.Error{Code: code, Message: fmt.Sprintf(format, args...)}}
	}
	if l.tooLong {
		return nil, fail(nil, jsonrpc.CodeParseError, "parse error: the line is longer than %d bytes", LineBytesMaxIn)
	}
	line := bytes.TrimRight(l.line, "\r\n")
	if len(bytes.TrimSpace(line)) == 0 {
		return nil, fail(nil, jsonrpc.CodeParseError, "parse error: an empty line")
	}
	var v any
	if err := json.Unmarshal(line, &v); err != nil {
		return nil, fail(nil, jsonrpc.CodeParseError, "parse error: %s", cut(err.Error(), 200))
	}
	obj, ok := v.(map[string]any)
	if !ok {
		// Batches went out of MCP with its 2025-06-18 revision.
		return nil, fail(nil, jsonrpc.CodeInvalidRequest, "invalid request: a message is a JSON object (batches are not supported)")
	}
	var head struct {
		JSONRPC *string         `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
	}
	json.Unmarshal(line, &head) // it is an object, so this cannot fail
	id := head.ID
	if len(id) > 0 && id[0] != '"' && id[0] != '-' && (id[0] < '0' || id[0] > '9') && string(id) != "null" {
		return nil, fail(nil, jsonrpc.CodeInvalidRequest, "invalid request: id must be a string or a number")
	}
	if head.JSONRPC == nil || *head.JSONRPC != "2.0" {
		return nil, fail(id, jsonrpc.CodeInvalidRequest, `invalid request: "jsonrpc" must be "2.0"`)
	}
	if _, hasMethod := obj["method"]; !hasMethod {
		if _, isResult := obj["result"]; !isResult {
			if _, isError := obj["error"]; !isError {
				return nil, fail(id, jsonrpc.CodeInvalidRequest, "invalid request: no method")
			}
		}
	}
	msg, err := jsonrpc.DecodeMessage(line)
	if err != nil {
		return nil, fail(id, jsonrpc.CodeInvalidRequest, "invalid request: %s", cut(err.Error(), 200))
	}
	return msg, nil
}

// Write writes one message as a line. An answer to a request that Read
// returned takes it off the list that the end of the input waits for.
func (c *lineConn) Write(ctx context.Context, msg jsonrpc.Message) error {
	data, err := jsonrpc.EncodeMessage(msg)
	if err != nil {
		return err
	}
	err = c.writeRaw(data)
	if resp, ok := msg.(*jsonrpc.Response); ok {
		c.mu.Lock()
		delete(c.pending, resp.ID)
		c.idle.Broadcast()
		c.mu.Unlock()
	}
	return err
}

func (c *lineConn) writeLine(v any) error {
	data, err := json.Marshal(v)
	if err != nil {
		return err
	}
	return c.writeRaw(data)
}

func (c *lineConn) writeRaw(data []byte) error {
	c.writeMu.Lock()
	defer c.writeMu.Unlock()
	select {
	case <-c.closed:
		return errors.New("the connection is closed")
	default:
	}
	_, err := c.out.Write(append(data, '\n'))
	return err
}

// Close closes the connection; a Read waiting for input or for answers
// returns.
func (c *lineConn) Close() error {
	c.closeOnce.Do(func() {
		close(c.closed)
		c.mu.Lock()
		c.isShut = true
		c.idle.Broadcast()
		c.mu.Unlock()
	})
	return nil
}

// SessionID is empty: a stdio connection is one session.
func (c *lineConn) SessionID() string { return "" }
