package server

import (
	"context"
	"errors"
	"net/http"
	"strconv"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/amem-dev/amem"
	"github.com/amem-dev/amem/auth"
	"github.com/amem-dev/amem/memory"
)

// metrics are the server's Prometheus metrics. Labels never carry
// namespaces, note IDs or keys: /metrics is unauthenticated, and a
// namespace name can itself be private.
type metrics struct {
	requests *prometheus.CounterVec
	latency  *prometheus.HistogramVec
	enrich   *prometheus.CounterVec
	handler  http.Handler
}

func newMetrics(mem *memory.Memory, reg prometheus.Registerer, gat prometheus.Gatherer) *metrics {
	if reg == nil || gat == nil {
		r := prometheus.NewRegistry()
		r.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
		reg, gat = r, r
	}
	m := &metrics{
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "amem_http_requests_total",
			Help: "HTTP API requests by route and status code.",
		}, []string{"route", "code"}),
		latency: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "amem_http_request_duration_seconds",
			Help:    "HTTP API request latency by route.",
			Buckets: []float64{.001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10, 30, 120},
		}, []string{"route"}),
		enrich: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "amem_enrichments_total",
			Help: "Enrichments (construct, link, evolve) run by this process, by result: done or failed.",
		}, []string{"result"}),
	}
	reg.MustRegister(m.requests, m.latency, m.enrich, &storeCollector{mem: mem}, &indexCollector{mem: mem})
	m.handler = promhttp.HandlerFor(gat, promhttp.HandlerOpts{})
	return m
}

func (m *metrics) observe(route string, status int, d time.Duration) {
	m.requests.WithLabelValues(route, strconv.Itoa(status)).Inc()
	m.latency.WithLabelValues(route).Observe(d.Seconds())
}

// enriched counts an enrichment by its outcome.
func (m *metrics) enriched(n amem.Note, err error) {
	var ee *memory.EnrichError
	switch {
	case errors.As(err, &ee) || err == nil && n.Enrichment.State == amem.EnrichFailed:
		m.enrich.WithLabelValues("failed").Inc()
	case err == nil && n.Enrichment.State == amem.EnrichDone:
		m.enrich.WithLabelValues("done").Inc()
	}
}

func (s *Server) serveMetrics(w http.ResponseWriter, r *http.Request, _ auth.Principal) {
	s.metrics.handler.ServeHTTP(w, r)
}

// storeCollector reads what the store knows at scrape time: notes by
// enrichment state (the queue is the pending ones), links, and the LLM
// tokens recorded, which survive restarts.
type storeCollector struct{ mem *memory.Memory }

var (
	notesDesc = prometheus.NewDesc("amem_notes",
		"Notes by enrichment state; pending notes are the enrichment queue.", []string{"state"}, nil)
	queueDesc = prometheus.NewDesc("amem_enrich_queue_depth",
		"Notes waiting for enrichment (pending), over all namespaces.", nil, nil)
	failedDesc = prometheus.NewDesc("amem_enrich_failed_notes",
		"Notes whose last enrichment failed (retried with backoff, or by hand).", nil, nil)
	linksDesc  = prometheus.NewDesc("amem_links", "Links between notes.", nil, nil)
	tokensDesc = prometheus.NewDesc("amem_llm_tokens_total",
		"LLM tokens recorded in the store, by kind: prompt or completion.", []string{"kind"}, nil)
)

func (c *storeCollector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{notesDesc, queueDesc, failedDesc, linksDesc, tokensDesc} {
		ch <- d
	}
}

func (c *storeCollector) Collect(ch chan<- prometheus.Metric) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	all, err := c.mem.Stats(ctx, "")
	if err != nil {
		ch <- prometheus.NewInvalidMetric(notesDesc, err)
		return
	}
	byState := map[amem.EnrichState]int{amem.EnrichPending: 0, amem.EnrichDone: 0, amem.EnrichFailed: 0}
	var links int
	var tokens amem.Usage
	for _, st := range all {
		for state, n := range st.ByState {
			byState[state] += n
		}
		links += st.Links
		tokens = tokens.Add(st.Tokens)
	}
	for state, n := range byState {
		ch <- prometheus.MustNewConstMetric(notesDesc, prometheus.GaugeValue, float64(n), string(state))
	}
	ch <- prometheus.MustNewConstMetric(queueDesc, prometheus.GaugeValue, float64(byState[amem.EnrichPending]))
	ch <- prometheus.MustNewConstMetric(failedDesc, prometheus.GaugeValue, float64(byState[amem.EnrichFailed]))
	ch <- prometheus.MustNewConstMetric(linksDesc, prometheus.GaugeValue, float64(links))
	ch <- prometheus.MustNewConstMetric(tokensDesc, prometheus.CounterValue, float64(tokens.PromptTokens), "prompt")
	ch <- prometheus.MustNewConstMetric(tokensDesc, prometheus.CounterValue, float64(tokens.CompletionTokens), "completion")
}

// indexCollector reads the counters of the memory's index cache: the
// approximate indexes this process built, and the saved indexes it read
// instead of building them (a restart that rebuilds finds no usable file).
type indexCollector struct{ mem *memory.Memory }

var (
	buildsDesc = prometheus.NewDesc("amem_index_builds_total",
		"Approximate vector indexes built by this process (switch-overs and compactions).", nil, nil)
	loadsDesc = prometheus.NewDesc("amem_index_loads_total",
		"Saved indexes read from the index directory instead of built, by kind: vector or fulltext.", []string{"kind"}, nil)
)

func (c *indexCollector) Describe(ch chan<- *prometheus.Desc) {
	ch <- buildsDesc
	ch <- loadsDesc
}

func (c *indexCollector) Collect(ch chan<- prometheus.Metric) {
	n := c.mem.IndexCounters()
	ch <- prometheus.MustNewConstMetric(buildsDesc, prometheus.CounterValue, float64(n.ANNBuilds))
	ch <- prometheus.MustNewConstMetric(loadsDesc, prometheus.CounterValue, float64(n.ANNLoads), "vector")
	ch <- prometheus.MustNewConstMetric(loadsDesc, prometheus.CounterValue, float64(n.LexLoads), "fulltext")
}
