// Package redistest starts real redis-server processes for tests: a single
// server on a unix socket in a fresh temporary directory, or a Cluster of
// masters on local ports. Each is stopped when its test ends.
//
// When redis-server is not installed, a test that needs it fails if
// ROBOTS_REQUIRE_REDIS=1 (as .ci/run sets, after installing it) and
// otherwise skips with a message saying so, also written to the file
// named by ROBOTS_SKIP_LOG.
//
// Non-goals: anything a non-test build uses; Redis configuration beyond
// what the tests need (no persistence, no replicas).
package redistest

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/crawlkit/robots/internal/sharedtest"
)

// binary returns the path of the named Redis program, or reports it
// missing: a failure under ROBOTS_REQUIRE_REDIS=1, else a loud skip.
func binary(t testing.TB, name string) string {
	t.Helper()
	path, err := exec.LookPath(name)
	if err == nil {
		return path
	}
	sharedtest.Lacking(t, "ROBOTS_REQUIRE_REDIS", fmt.Sprintf("REDIS MISSING: %s: %s is not installed (Debian: apt-get install -y redis-server): this test did not run", t.Name(), name))
	t.SkipNow()
	return ""
}

// Server is a redis-server started by a test.
type Server struct {
	// Socket is the path of its unix socket; Addr its TCP address, ""
	// when it listens on the socket only.
	Socket, Addr string

	cmd    *exec.Cmd
	output *bytes.Buffer
	mu     sync.Mutex
	done   chan struct{}
}

// Start starts a redis-server on a unix socket in a fresh temporary
// directory, without persistence, and waits until it answers.
func Start(t testing.TB) *Server {
	t.Helper()
	bin := binary(t, "redis-server")
	dir := tempDir(t)
	s := &Server{Socket: filepath.Join(dir, "r.sock")}
	s.start(t, bin, dir, "--port", "0", "--unixsocket", s.Socket, "--unixsocketperm", "700")
	return s
}

// tempDir returns a fresh directory with a short path (a unix socket's
// path is limited to about 100 bytes), removed when t ends.
func tempDir(t testing.TB) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "redis")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	return dir
}

func (s *Server) start(t testing.TB, bin, dir string, args ...string) {
	t.Helper()
	err := s.try(bin, dir, args...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Stop)
}

// try starts the server and waits until it answers; when it does not, it
// is stopped and the error says why.
func (s *Server) try(bin, dir string, args ...string) error {
	args = append(args, "--save", "", "--appendonly", "no", "--dir", dir, "--bind", "127.0.0.1")
	s.output = &bytes.Buffer{}
	s.cmd = exec.Command(bin, args...)
	s.cmd.Stdout, s.cmd.Stderr = lockedWriter{s}, lockedWriter{s}
	dieWithParent(s.cmd)
	if err := s.cmd.Start(); err != nil {
		return fmt.Errorf("starting redis-server: %w", err)
	}
	s.done = make(chan struct{})
	go func() {
		s.cmd.Wait()
		close(s.done)
	}()
	c := s.client()
	defer c.Close()
	deadline := time.Now().Add(10 * time.Second)
	for c.Ping(context.Background()).Err() != nil {
		select {
		case <-s.done:
			return fmt.Errorf("redis-server exited: %s", s.Output())
		default:
		}
		if time.Now().After(deadline) {
			s.Stop()
			return fmt.Errorf("redis-server did not answer within 10 s: %s", s.Output())
		}
		time.Sleep(5 * time.Millisecond) // polling a process we started, not synchronising the test
	}
	return nil
}

func (s *Server) client() *redis.Client {
	o := s.Options()
	o.MaxRetries = -1
	return redis.NewClient(o)
}

// Options returns the options of a client of s as a fleet should set them:
// context deadlines honoured while reading (ContextTimeoutEnabled).
func (s *Server) Options() *redis.Options {
	if s.Addr != "" {
		return &redis.Options{Addr: s.Addr, ContextTimeoutEnabled: true}
	}
	return &redis.Options{Network: "unix", Addr: s.Socket, ContextTimeoutEnabled: true}
}

// Client returns a client of s with Options, closed when t ends.
func (s *Server) Client(t testing.TB) *redis.Client {
	c := redis.NewClient(s.Options())
	t.Cleanup(func() { c.Close() })
	return c
}

// Pause stops the server without ending it (SIGSTOP), as a hung or
// swapped-out Redis: connections stay open, replies never come. Resume
// undoes it; the server is resumed when the test ends.
func (s *Server) Pause(t testing.TB) {
	t.Helper()
	if err := s.cmd.Process.Signal(syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Resume)
}

// Resume lets a paused server go on (SIGCONT).
func (s *Server) Resume() { s.cmd.Process.Signal(syscall.SIGCONT) }

// Stop kills the server (SIGKILL, as a crash would) and waits for it to
// exit. It may be called more than once.
func (s *Server) Stop() {
	if s.cmd.Process != nil {
		s.cmd.Process.Kill()
		s.cmd.Process.Signal(syscall.SIGCONT) // a paused process dies only once resumed
	}
	<-s.done
}

// Output returns what the server printed.
func (s *Server) Output() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.output.String()
}

type lockedWriter struct{ s *Server }

func (w lockedWriter) Write(p []byte) (int, error) {
	w.s.mu.Lock()
	defer w.s.mu.Unlock()
	return w.s.output.Write(p)
}

// Cluster is a Redis Cluster of masters started by a test.
type Cluster struct {
	Addrs   []string
	Servers []*Server
}

// StartCluster starts masters redis-servers on free local ports, joins them
// into a Cluster (its 16,384 slots shared among them), and waits until the
// Cluster is ready.
func StartCluster(t testing.TB, masters int) *Cluster {
	t.Helper()
	bin := binary(t, "redis-server")
	cli := binary(t, "redis-cli")
	dir := tempDir(t)
	c := &Cluster{}
	for i := range masters {
		s := startClusterNode(t, bin, dir, i)
		c.Servers = append(c.Servers, s)
		c.Addrs = append(c.Addrs, s.Addr)
	}
	args := append([]string{"--cluster", "create"}, c.Addrs...)
	out, err := exec.Command(cli, append(args, "--cluster-replicas", "0", "--cluster-yes")...).CombinedOutput()
	if err != nil {
		t.Fatalf("redis-cli --cluster create: %v: %s", err, out)
	}
	deadline := time.Now().Add(20 * time.Second)
	for _, s := range c.Servers {
		rc := s.client()
		for {
			info, _ := rc.ClusterInfo(context.Background()).Result()
			if strings.Contains(info, "cluster_state:ok") {
				break
			}
			if time.Now().After(deadline) {
				rc.Close()
				t.Fatalf("the Cluster did not become ready within 20 s: %s", info)
			}
			time.Sleep(20 * time.Millisecond) // polling the Cluster's state, not synchronising the test
		}
		rc.Close()
	}
	return c
}

// startClusterNode starts the i-th node of a Cluster on free ports: a port
// found free may be taken before redis-server binds it (by another test
// process), so a node that cannot listen is started again on others.
func startClusterNode(t testing.TB, bin, dir string, i int) *Server {
	t.Helper()
	for attempt := 1; ; attempt++ {
		ports := freePorts(t, 2)
		s := &Server{Addr: "127.0.0.1:" + strconv.Itoa(ports[0])}
		err := s.try(bin, dir, "--port", strconv.Itoa(ports[0]), "--cluster-enabled", "yes", "--cluster-port", strconv.Itoa(ports[1]),
			"--cluster-config-file", filepath.Join(dir, fmt.Sprintf("nodes-%d-%d.conf", i, attempt)), "--cluster-node-timeout", "2000")
		if err == nil {
			t.Cleanup(s.Stop)
			return s
		}
		if attempt == 5 {
			t.Fatalf("starting Cluster node %d: %v", i, err)
		}
	}
}

// Client returns a Cluster client of c, with context deadlines honoured
// while reading, closed when t ends.
func (c *Cluster) Client(t testing.TB) *redis.ClusterClient {
	rc := redis.NewClusterClient(&redis.ClusterOptions{Addrs: c.Addrs, ContextTimeoutEnabled: true})
	t.Cleanup(func() { rc.Close() })
	return rc
}

// freePorts returns n distinct TCP ports free on 127.0.0.1 now.
func freePorts(t testing.TB, n int) []int {
	t.Helper()
	var ls []net.Listener
	var ports []int
	for range n {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		ls = append(ls, l)
		ports = append(ports, l.Addr().(*net.TCPAddr).Port)
	}
	for _, l := range ls {
		l.Close()
	}
	return ports
}
