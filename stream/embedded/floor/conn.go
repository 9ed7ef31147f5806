package floor

import (
	"encoding/binary"
	"fmt"
	"io"
	"net"
	"sync"

	"github.com/twmb/franz-go/pkg/kmsg"
)

// maxFrame bounds a frame the shim buffers; kafka-go's requests are far smaller.
const maxFrame = 256 << 20

// Wrap returns ln with the shim on every connection it accepts.
func (s *Shim) Wrap(ln net.Listener) net.Listener { return listener{ln, s} }

type listener struct {
	net.Listener
	s *Shim
}

func (l listener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	return &conn{Conn: c, s: l.s, apiVersions: make(map[int32]int16)}, nil
}

// conn hands the broker one request frame at a time, checked against the
// floor, and rewrites the broker's ApiVersions answers on their way out.
type conn struct {
	net.Conn
	s  *Shim
	in []byte // the rest of the request frame being read by the broker

	mu          sync.Mutex
	apiVersions map[int32]int16 // correlation id → version of an ApiVersions request
	out         []byte          // response bytes not yet a whole frame
}

func (c *conn) Read(p []byte) (int, error) {
	if len(c.in) == 0 {
		frame, err := readFrame(c.Conn)
		if err != nil {
			return 0, err
		}
		if err := c.inspect(frame[4:]); err != nil {
			c.Conn.Close()
			return 0, err
		}
		c.in = frame
	}
	n := copy(p, c.in)
	c.in = c.in[n:]
	return n, nil
}

func readFrame(r io.Reader) ([]byte, error) {
	var size [4]byte
	if _, err := io.ReadFull(r, size[:]); err != nil {
		return nil, err
	}
	n := binary.BigEndian.Uint32(size[:])
	if n < 8 || n > maxFrame {
		return nil, fmt.Errorf("floor: request frame of %d bytes", n)
	}
	frame := make([]byte, 4+n)
	copy(frame, size[:])
	_, err := io.ReadFull(r, frame[4:])
	return frame, err
}

// inspect reads a request header: API key, version, correlation id.
func (c *conn) inspect(body []byte) error {
	r := Request{Key: int16(binary.BigEndian.Uint16(body)), Version: int16(binary.BigEndian.Uint16(body[2:]))}
	if !c.s.admit(r) {
		return fmt.Errorf("floor: %s v%d is below the floor, connection closed", kmsg.NameForKey(r.Key), r.Version)
	}
	if r.Key == 18 {
		c.mu.Lock()
		c.apiVersions[int32(binary.BigEndian.Uint32(body[4:]))] = r.Version
		c.mu.Unlock()
	}
	return nil
}

func (c *conn) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.out = append(c.out, p...)
	for len(c.out) >= 4 {
		end := 4 + int(binary.BigEndian.Uint32(c.out))
		if len(c.out) < end {
			break
		}
		frame, err := c.rewrite(c.out[:end])
		if err != nil {
			return 0, err
		}
		if _, err := c.Conn.Write(frame); err != nil {
			return 0, err
		}
		c.out = append(c.out[:0], c.out[end:]...)
	}
	return len(p), nil
}

// rewrite raises the minimum versions of an ApiVersions answer to the floor;
// other responses pass unchanged. A response header of ApiVersions is always
// version 0: the correlation id alone.
func (c *conn) rewrite(frame []byte) ([]byte, error) {
	corr := int32(binary.BigEndian.Uint32(frame[4:]))
	v, ok := c.apiVersions[corr]
	if !ok {
		return frame, nil
	}
	delete(c.apiVersions, corr)
	resp := kmsg.ApiVersionsResponse{Version: v}
	if err := resp.ReadFrom(frame[8:]); err != nil {
		return nil, fmt.Errorf("floor: read ApiVersions v%d answer: %w", v, err)
	}
	for i, k := range resp.ApiKeys {
		resp.ApiKeys[i].MinVersion = max(k.MinVersion, c.s.floor[k.ApiKey])
	}
	out := make([]byte, 8, 512) // size, then correlation id
	binary.BigEndian.PutUint32(out[4:], uint32(corr))
	out = resp.AppendTo(out)
	binary.BigEndian.PutUint32(out, uint32(len(out)-4))
	return out, nil
}
