package redisfleet_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/crawlkit/robots"
	"github.com/crawlkit/robots/internal/engine"
	"github.com/crawlkit/robots/redisfleet"
	"github.com/crawlkit/robots/redisfleet/internal/redistest"
)

// A fleet of OS processes: this test binary, run again as workers. Each
// worker is a robots.Client on the shared Redis, asking many goroutines'
// worth of questions about hosts that all resolve to one origin, which
// counts the fetches of each. The parent drives the workers through their
// standard input, one command a line, and reads one reply a line.

const workerEnv = "REDISFLEET_TEST_WORKER"

// workerConfig is what a worker is started with, as JSON in workerEnv.
type workerConfig struct {
	ID         int
	Socket     string // Redis
	Origin     string // host:port of the origin
	Prefix     string
	Goroutines int
}

// reply is a worker's answer to "ask": how many answers were wrong or
// failed, and its Client's figures.
type reply struct {
	Wrong                                      int
	Fetches, FleetHits, FleetErrors, Fallbacks uint64
}

// worker runs this process as a worker when it was started as one, and
// reports whether it was.
func worker() bool {
	raw := os.Getenv(workerEnv)
	if raw == "" {
		return false
	}
	var cfg workerConfig
	if err := json.Unmarshal([]byte(raw), &cfg); err != nil {
		fmt.Println("bad config:", err)
		os.Exit(2)
	}
	runWorker(cfg, os.Stdin, os.Stdout)
	return true
}

// host is the name of host i; each disallows its own name.
func host(i int) string { return fmt.Sprintf("h%d.test", i) }

func runWorker(cfg workerConfig, in io.Reader, out io.Writer) {
	redis.SetLogger(quiet{}) // a worker's Redis dies on purpose: its dial errors are expected
	rdb := redis.NewClient(&redis.Options{Network: "unix", Addr: cfg.Socket, ContextTimeoutEnabled: true})
	defer rdb.Close()
	level := new(slog.LevelVar) // "quiet" raises it past the warnings of a Redis killed on purpose
	level.Set(slog.LevelWarn)
	// The worker's clock: the real one, set back 25 h at first, then moved
	// on by "advance", so that a test can let records expire and still
	// publish none in the future by Redis's clock.
	var offset atomic.Int64
	offset.Store(-int64(25 * time.Hour))
	now := func() time.Time { return time.Now().Add(time.Duration(offset.Load())) }
	dial := func(ctx context.Context, network, _ string) (net.Conn, error) {
		var d net.Dialer
		return d.DialContext(ctx, network, cfg.Origin)
	}
	c, err := robots.New(robots.Options{
		UserAgent:  fmt.Sprintf("FleetBot/1.0 (worker %d)", cfg.ID),
		HTTPClient: &http.Client{Transport: &http.Transport{DialContext: dial}},
		Fleet:      redisfleet.New(rdb, redisfleet.Options{Prefix: cfg.Prefix, Timeout: 2 * time.Second}),
		Now:        now, // FetchTimeout the default, 30 s: a dead holder costs the others a short lease, not that
		// Why the fleet was given up, on the test's output when it fails:
		// a Redis slower than the fleet's timeout (a machine overloaded)
		// makes the workers fetch for themselves, by design.
		Logger: slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: level})),
	})
	if err != nil {
		fmt.Fprintln(out, "error", err)
		return
	}
	sc := bufio.NewScanner(in)
	for sc.Scan() {
		var from, to int
		var secs int64
		switch line := sc.Text(); {
		case line == "quit":
			return
		case line == "quiet":
			level.Set(slog.LevelError)
			fmt.Fprintln(out, "ok")
		case strings.HasPrefix(line, "advance"):
			fmt.Sscanf(line, "advance %d", &secs)
			offset.Add(int64(time.Duration(secs) * time.Second))
			fmt.Fprintln(out, "ok")
		case strings.HasPrefix(line, "ask"):
			fmt.Sscanf(line, "ask %d %d", &from, &to)
			r := ask(c, cfg.Goroutines, from, to)
			st := c.Stats()
			r.Fetches, r.FleetHits, r.FleetErrors, r.Fallbacks = st.Fetches, st.FleetHits, st.FleetErrors, st.FleetFallbacks
			b, _ := json.Marshal(r)
			fmt.Fprintln(out, string(b))
		}
	}
}

// ask asks, from goroutines goroutines, about every host in [from, to):
// its own path (disallowed) and another (allowed). It returns once every
// answer is in and the records this worker fetched are published (Flush).
// No answer is stale, then or before: a host is asked about cold, or once
// its record is more than 24 h old, which is not served while it is
// refreshed (RFC 9309 §2.4), so each caller waits for the refresh, and no
// refresh of this worker runs in the background when it replies; a stale
// answer counts as a wrong one.
func ask(c *robots.Client, goroutines, from, to int) reply {
	var wrong atomic.Int64
	var wg sync.WaitGroup
	for g := range goroutines {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := from + g; i < to; i += goroutines {
				h := host(i)
				own, err1 := c.Allowed(context.Background(), "http://"+h+"/"+h)
				other, err2 := c.Allowed(context.Background(), "http://"+h+"/elsewhere")
				if err1 != nil || err2 != nil || own || !other {
					wrong.Add(1)
				}
			}
		}()
	}
	wg.Wait()
	if err := c.Flush(context.Background()); err != nil {
		wrong.Add(1) // Flush fails only with its context, which does not end
	}
	for i := from; i < to; i++ {
		if d, err := c.Check(context.Background(), "http://"+host(i)+"/x"); err != nil || d.Stale {
			wrong.Add(1)
		}
	}
	return reply{Wrong: int(wrong.Load())}
}

type quiet struct{}

func (quiet) Printf(context.Context, string, ...any) {}

// fleetProcess is a worker seen from the parent.
type fleetProcess struct {
	cmd *exec.Cmd
	in  io.WriteCloser
	out *bufio.Scanner
}

func startWorker(t *testing.T, cfg workerConfig) *fleetProcess {
	t.Helper()
	raw, _ := json.Marshal(cfg)
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), workerEnv+"="+string(raw))
	cmd.Stderr = os.Stderr
	in, err := cmd.StdinPipe()
	require.NoError(t, err)
	out, err := cmd.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	p := &fleetProcess{cmd: cmd, in: in, out: bufio.NewScanner(out)}
	t.Cleanup(func() {
		p.in.Close()
		p.cmd.Process.Kill()
		p.cmd.Wait()
	})
	return p
}

// send sends a command and returns the reply line.
func (p *fleetProcess) send(cmd string) (string, error) {
	if _, err := fmt.Fprintln(p.in, cmd); err != nil {
		return "", err
	}
	if !p.out.Scan() {
		return "", fmt.Errorf("worker %d gave no reply to %q", p.cmd.Process.Pid, cmd)
	}
	return p.out.Text(), nil
}

func (p *fleetProcess) ask(from, to int) (reply, error) {
	var r reply
	line, err := p.send(fmt.Sprintf("ask %d %d", from, to))
	if err == nil {
		err = json.Unmarshal([]byte(line), &r)
	}
	return r, err
}

// origin is the robots.txt server of every host name: each disallows its
// own name. It counts the fetches of each, and may hold the first request
// of one host until told to go on.
type origin struct {
	*httptest.Server
	mu      sync.Mutex
	fetches map[string]int
	hold    string        // a host whose first request waits
	held    chan string   // receives the User-Agent of that request
	goOn    chan struct{} // closed to let it go
	latency time.Duration // added to every answer: a site across the Internet
}

func newOrigin(t testing.TB) *origin {
	o := &origin{fetches: map[string]int{}, held: make(chan string, 1), goOn: make(chan struct{})}
	o.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := strings.TrimSuffix(r.Host, ":80")
		o.mu.Lock()
		o.fetches[h]++
		first := o.fetches[h] == 1 && h == o.hold
		latency := o.latency
		o.mu.Unlock()
		time.Sleep(latency) // the network's, not a wait for anything in the test
		if first {
			o.held <- r.UserAgent()
			<-o.goOn
		}
		fmt.Fprintf(w, "User-agent: *\nDisallow: /%s\n", h)
	}))
	t.Cleanup(func() {
		select {
		case <-o.goOn:
		default:
			close(o.goOn)
		}
		o.Close()
	})
	return o
}

func (o *origin) count(h string) int {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.fetches[h]
}

// askAll has every worker ask about [from, to) at once and returns their
// replies.
func askAll(t *testing.T, ws []*fleetProcess, from, to int) []reply {
	t.Helper()
	out := make([]reply, len(ws))
	errs := make([]error, len(ws))
	var wg sync.WaitGroup
	for i, w := range ws {
		wg.Add(1)
		go func() {
			defer wg.Done()
			out[i], errs[i] = w.ask(from, to)
		}()
	}
	wg.Wait()
	for _, err := range errs {
		require.NoError(t, err)
	}
	return out
}

func TestFleetOfProcesses(t *testing.T) {
	if testing.Short() {
		t.Skip("SKIPPED in -short mode: starts a fleet of processes")
	}
	const workers, hosts = 3, 1000
	srv := redistest.Start(t)
	o := newOrigin(t)
	var ws []*fleetProcess
	for i := range workers {
		ws = append(ws, startWorker(t, workerConfig{ID: i, Socket: srv.Socket, Origin: o.Listener.Addr().String(),
			Prefix: "fleet", Goroutines: 16}))
	}

	// 1,000 cold hosts, asked by every worker at once: one fetch each.
	for _, r := range askAll(t, ws, 0, hosts) {
		assert.Zero(t, r.Wrong)
		assert.Zero(t, r.Fallbacks, "%+v", r)
	}
	for i := range hosts {
		require.Equal(t, 1, o.count(host(i)), host(i))
	}

	// All expire together (24 h, no caching headers; the workers' clocks
	// come back from a day in the past): one refetch each.
	for _, w := range ws {
		line, err := w.send("advance 90000")
		require.NoError(t, err)
		require.Equal(t, "ok", line)
	}
	var fetches, hits uint64
	second := askAll(t, ws, 0, hosts)
	for _, r := range second {
		assert.Zero(t, r.Wrong)
		fetches += r.Fetches
		hits += r.FleetHits
	}
	for i := range hosts {
		require.Equal(t, 2, o.count(host(i)), host(i))
	}
	assert.Equal(t, uint64(2*hosts), fetches, "each fetch made by one worker for all")
	t.Logf("%d workers, %d hosts, twice: %d fetches, %d records from Redis", workers, hosts, fetches, hits)

	// The worker holding a host's lease is killed mid-fetch: the others
	// wait out its short lease, one of them takes over. The lease is a
	// term of 5 s, renewed while its holder lives, whatever FetchTimeout is
	// (30 s here): Redis says what is left of it, and the others fall back
	// to fetches of their own only if no publication comes within the
	// fetch's grace and two terms more, which counts in Fallbacks.
	victim := host(hosts)
	rdb := srv.Client(t)
	_, leaseKey := redisfleet.New(rdb, redisfleet.Options{Prefix: "fleet"}).Keys("http://" + victim)
	o.mu.Lock()
	o.hold = victim
	o.mu.Unlock()
	type answer struct {
		id  int
		r   reply
		err error
	}
	answers := make(chan answer, workers)
	for id, w := range ws {
		go func() {
			r, err := w.ask(hosts, hosts+1)
			answers <- answer{id, r, err}
		}()
	}
	ua := <-o.held
	left, err := rdb.PTTL(context.Background(), leaseKey).Result()
	require.NoError(t, err)
	assert.Positive(t, left, "the holder of %s holds its lease while it fetches", victim)
	assert.LessOrEqual(t, left, engine.DefaultLease, "a short lease, not the fetch's timeout")
	var id int
	fmt.Sscanf(ua[strings.Index(ua, "(worker "):], "(worker %d)", &id)
	require.NoError(t, ws[id].cmd.Process.Signal(syscall.SIGKILL))
	killed := time.Now()
	close(o.goOn)
	for range workers {
		a := <-answers
		if a.id == id {
			assert.Error(t, a.err, "the killed worker answers nothing")
			continue
		}
		require.NoError(t, a.err)
		assert.Zero(t, a.r.Wrong, "every live worker answered, rightly")
		assert.Equal(t, second[a.id].Fallbacks, a.r.Fallbacks, "worker %d took over, or waited for the publication, through the fleet", a.id)
		assert.Equal(t, second[a.id].FleetErrors, a.r.FleetErrors, "worker %d", a.id)
	}
	assert.Equal(t, 2, o.count(victim), "fetched twice: by the dead worker and by its one successor")
	t.Logf("the lease holder killed mid-fetch, %v of its lease left: %s fetched %d times, answered %v after the kill",
		left, victim, o.count(victim), time.Since(killed).Round(time.Millisecond))
	alive := append(ws[:id:id], ws[id+1:]...)

	// Redis dies mid-run: every decision is still made, and right.
	before := askAll(t, alive, 0, 0)
	for _, w := range alive {
		line, err := w.send("quiet")
		require.NoError(t, err)
		require.Equal(t, "ok", line)
	}
	srv.Stop()
	for i, r := range askAll(t, alive, hosts+1, hosts+201) {
		assert.Zero(t, r.Wrong)
		assert.Equal(t, uint64(200), r.Fallbacks-before[i].Fallbacks, "each new host fetched locally, counted")
	}
	for _, w := range alive {
		fmt.Fprintln(w.in, "quit")
		assert.NoError(t, w.cmd.Wait())
	}
}
