package server

import (
	"math"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/time/rate"
)

// Rate limits. A key's requests are limited so that one agent in a loop
// can't starve the others; a client address's failed authentications are
// limited so that guessing keys is slow and a flood of bad keys costs
// neither key lookups nor log lines.
const (
	// DefaultKeyRate is the requests per second each API key may make,
	// with bursts of twice as many.
	DefaultKeyRate = 1000
	// DefaultAuthFailRate is the failed authentications per second a
	// client address may make once it has used its burst of
	// DefaultAuthFailBurst; past that its requests get 429 without a
	// key check until the bucket refills.
	DefaultAuthFailRate  = 1
	DefaultAuthFailBurst = 20
)

// maxLimiters bounds each table of limiters. Past it, limiters that are
// full (idle clients) are dropped; if none is, the table starts afresh:
// a flood from countless addresses then meets fresh buckets, which still
// bound each address.
const maxLimiters = 100_000

// limiters is a table of token buckets by name (a key ID or an address).
type limiters struct {
	rate  rate.Limit
	burst int
	mu    sync.Mutex
	m     map[string]*rate.Limiter
}

// newLimiters returns nil, meaning no limit, for a rate <= 0.
func newLimiters(perSecond float64, burst int) *limiters {
	if perSecond <= 0 {
		return nil
	}
	return &limiters{rate: rate.Limit(perSecond), burst: max(burst, 1), m: make(map[string]*rate.Limiter)}
}

func (l *limiters) get(name string, now time.Time) *rate.Limiter {
	l.mu.Lock()
	defer l.mu.Unlock()
	lim := l.m[name]
	if lim == nil {
		if len(l.m) >= maxLimiters {
			for k, v := range l.m {
				if v.TokensAt(now) >= float64(l.burst) {
					delete(l.m, k)
				}
			}
			if len(l.m) >= maxLimiters {
				l.m = make(map[string]*rate.Limiter)
			}
		}
		lim = rate.NewLimiter(l.rate, l.burst)
		l.m[name] = lim
	}
	return lim
}

// take spends a token of name's bucket, or says how long until one is
// there.
func (l *limiters) take(name string, now time.Time) (ok bool, wait time.Duration) {
	if l == nil {
		return true, 0
	}
	lim := l.get(name, now)
	if lim.AllowN(now, 1) {
		return true, 0
	}
	return false, l.wait(lim, now)
}

// check says whether name's bucket has a token, without spending it.
func (l *limiters) check(name string, now time.Time) (ok bool, wait time.Duration) {
	if l == nil {
		return true, 0
	}
	l.mu.Lock()
	lim := l.m[name]
	l.mu.Unlock()
	if lim == nil || lim.TokensAt(now) >= 1 {
		return true, 0
	}
	return false, l.wait(lim, now)
}

func (l *limiters) wait(lim *rate.Limiter, now time.Time) time.Duration {
	r := lim.ReserveN(now, 1)
	defer r.CancelAt(now)
	return r.DelayFrom(now)
}

// tooMany answers 429 with Retry-After in whole seconds, at least 1.
func tooMany(w http.ResponseWriter, r *http.Request, wait time.Duration, what string) {
	secs := max(1, int(math.Ceil(wait.Seconds())))
	w.Header().Set("Retry-After", strconv.Itoa(secs))
	problem(w, r, http.StatusTooManyRequests, "%s; retry after %d s", what, secs)
}

// clientAddress is the address a request is limited by: the TCP peer's,
// or with a trusted proxy header, the last address the proxy appended.
func (s *Server) clientAddress(r *http.Request) string {
	if h := s.opts.ClientIPHeader; h != "" {
		if v := r.Header.Values(h); len(v) > 0 {
			parts := strings.Split(v[len(v)-1], ",")
			if ip := strings.TrimSpace(parts[len(parts)-1]); ip != "" {
				return ip
			}
		}
	}
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		return r.RemoteAddr
	}
	return host
}

// guardAuthFailures refuses the requests of an address that has spent
// its failed-authentication burst, before any key is looked up, and
// charges the address for each 401 h answers.
func (s *Server) guardAuthFailures(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		addr := s.clientAddress(r)
		if ok, wait := s.authFails.check(addr, s.now()); !ok {
			tooMany(w, r, wait, "too many requests with a missing or wrong API key from this address")
			return
		}
		rec, ok := w.(*statusRecorder)
		if !ok {
			rec = &statusRecorder{ResponseWriter: w, status: http.StatusOK}
		}
		h.ServeHTTP(rec, r)
		if rec.status == http.StatusUnauthorized {
			s.authFails.take(addr, s.now())
		}
	})
}

// refusalLog samples the access log's lines for refused requests (401,
// 403, 429): a flood of them would otherwise write a line each (42,500
// unauthenticated POSTs in 32 s grew the log by 5 MB). At most
// refusalLogRate lines a second are written, bursts of refusalLogBurst;
// the next line written says how many were left out.
type refusalLog struct {
	lim     *rate.Limiter
	dropped atomic.Int64
}

const (
	refusalLogRate  = 5
	refusalLogBurst = 20
)

func newRefusalLog() *refusalLog {
	return &refusalLog{lim: rate.NewLimiter(refusalLogRate, refusalLogBurst)}
}

// admit reports whether to log this refusal, and how many were not
// logged since the last one that was.
func (l *refusalLog) admit(now time.Time) (ok bool, dropped int64) {
	if !l.lim.AllowN(now, 1) {
		l.dropped.Add(1)
		return false, 0
	}
	return true, l.dropped.Swap(0)
}

func refused(status int) bool {
	return status == http.StatusUnauthorized || status == http.StatusForbidden || status == http.StatusTooManyRequests
}
