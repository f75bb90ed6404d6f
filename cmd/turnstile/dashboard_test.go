package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/turnstile-sim/turnstile/core/server"
)

// dashboardPath is the Grafana dashboard of the operator section.
var dashboardPath = filepath.Join("..", "..", "deploy", "grafana", "turnstile.json")

// recorder is a registry that keeps the collectors registered on it, so
// that every metric name shows, even a vector with no series yet.
type recorder struct {
	*prometheus.Registry
	cs []prometheus.Collector
}

func (r *recorder) Register(c prometheus.Collector) error {
	r.cs = append(r.cs, c)
	return r.Registry.Register(c)
}

func (r *recorder) MustRegister(cs ...prometheus.Collector) {
	for _, c := range cs {
		if err := r.Register(c); err != nil {
			panic(err)
		}
	}
}

var fqName = regexp.MustCompile(`fqName: "([^"]+)"`)

// exposedNames are the series names r's collectors expose: each metric
// name, and a histogram's _bucket, _count and _sum (a summary's _count
// and _sum). base maps every exposed name to its metric.
func exposedNames(t *testing.T, r *recorder) (base map[string]string) {
	t.Helper()
	kinds := map[string]string{}
	for _, c := range r.cs {
		kind := "other"
		switch c.(type) {
		case *prometheus.HistogramVec:
			kind = "histogram"
		case *prometheus.SummaryVec:
			kind = "summary"
		}
		ch := make(chan *prometheus.Desc, 256)
		go func() { c.Describe(ch); close(ch) }()
		for d := range ch {
			m := fqName.FindStringSubmatch(d.String())
			if m == nil {
				t.Fatalf("no name in %s", d)
			}
			kinds[m[1]] = kind
		}
	}
	mfs, err := r.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, mf := range mfs {
		kinds[mf.GetName()] = strings.ToLower(mf.GetType().String())
	}
	base = map[string]string{}
	for name, kind := range kinds {
		base[name] = name
		switch kind {
		case "histogram":
			base[name+"_bucket"], base[name+"_count"], base[name+"_sum"] = name, name, name
		case "summary":
			base[name+"_count"], base[name+"_sum"] = name, name
		}
	}
	return base
}

// registeredNames gathers Core's and the daemon's registries as the
// binaries build them.
func registeredNames(t *testing.T) map[string]string {
	t.Helper()
	core := &recorder{Registry: prometheus.NewRegistry()}
	srv, err := server.New(server.NewMemory(), server.Options{Metrics: registerCoreMetrics(core)})
	if err != nil {
		t.Fatal(err)
	}
	core.MustRegister(turnsCollector(srv))
	ctx, stop := context.WithCancel(context.Background())
	ran := make(chan error, 1)
	go func() { ran <- srv.Run(ctx) }()
	defer func() { stop(); <-ran }() // scrape-time collectors read the loop
	daemon := &recorder{Registry: prometheus.NewRegistry()}
	registerDaemonMetrics(daemon)
	names := exposedNames(t, core)
	for k, v := range exposedNames(t, daemon) {
		names[k] = v
	}
	return names
}

// metricRef finds the metric names of a PromQL expression: Turnstile's,
// the Go runtime's and the process collector's.
var metricRef = regexp.MustCompile(`(?:^|[^a-zA-Z0-9_:$])((?:turnstile|go|process)_[a-zA-Z0-9_:]*)`)

func metricRefs(expr string) []string {
	var out []string
	for _, m := range metricRef.FindAllStringSubmatch(expr, -1) {
		out = append(out, m[1])
	}
	return out
}

// dashPanel is what the test reads of a panel.
type dashPanel struct {
	ID      int         `json:"id"`
	Type    string      `json:"type"`
	Title   string      `json:"title"`
	Targets []dashQuery `json:"targets"`
	Panels  []dashPanel `json:"panels"` // a collapsed row's
}

type dashQuery struct {
	Expr string `json:"expr"`
}

// dashboardQueries reads the dashboard: each panel's title and its
// expressions, and the variables' queries.
func dashboardQueries(t *testing.T, b []byte) (panels map[string][]string, variables []string) {
	t.Helper()
	var d struct {
		Title      string      `json:"title"`
		Panels     []dashPanel `json:"panels"`
		Templating struct {
			List []struct {
				Name       string `json:"name"`
				Definition string `json:"definition"`
			} `json:"list"`
		} `json:"templating"`
	}
	if err := json.Unmarshal(b, &d); err != nil {
		t.Fatalf("%s: %v", dashboardPath, err)
	}
	if d.Title == "" || len(d.Panels) == 0 {
		t.Fatalf("%s: no title or no panels", dashboardPath)
	}
	panels = map[string][]string{}
	var walk func([]dashPanel)
	walk = func(ps []dashPanel) {
		for _, p := range ps {
			if p.Type == "row" {
				walk(p.Panels)
				continue
			}
			if _, dup := panels[p.Title]; dup || p.Title == "" {
				t.Errorf("panel %d: title %q empty or repeated", p.ID, p.Title)
			}
			panels[p.Title] = nil
			for _, q := range p.Targets {
				panels[p.Title] = append(panels[p.Title], q.Expr)
			}
		}
	}
	walk(d.Panels)
	for _, v := range d.Templating.List {
		if v.Definition != "" {
			variables = append(variables, v.Definition)
		}
	}
	return panels, variables
}

// unknownRefs lists the metric names expr uses that are not exposed; it
// also reports an expression that uses none.
func unknownRefs(expr string, exposed map[string]string) []string {
	refs := metricRefs(expr)
	if len(refs) == 0 {
		return []string{"(no metric)"}
	}
	var bad []string
	for _, r := range refs {
		if _, ok := exposed[r]; !ok {
			bad = append(bad, r)
		}
	}
	return bad
}

// Every query of deploy/grafana/turnstile.json names a metric Core or the
// daemon registers (a histogram's series by their suffixes), and every
// Turnstile metric they register has a panel.
func TestDashboardQueriesRegisteredMetrics(t *testing.T) {
	exposed := registeredNames(t)
	b, err := os.ReadFile(dashboardPath)
	if err != nil {
		t.Fatal(err)
	}
	panels, variables := dashboardQueries(t, b)
	used := map[string]bool{}
	for title, exprs := range panels {
		if len(exprs) == 0 {
			t.Errorf("panel %q has no query", title)
		}
		for _, e := range exprs {
			if bad := unknownRefs(e, exposed); len(bad) > 0 {
				t.Errorf("panel %q: %s uses %v, which no binary registers", title, e, bad)
			}
			for _, r := range metricRefs(e) {
				used[exposed[r]] = true
			}
		}
	}
	for _, v := range variables {
		if bad := unknownRefs(v, exposed); len(bad) > 0 {
			t.Errorf("variable query %s uses %v, which no binary registers", v, bad)
		}
	}
	var unused []string
	for name, metric := range exposed {
		if name == metric && strings.HasPrefix(name, "turnstile_") && !used[name] {
			unused = append(unused, name)
		}
	}
	slices.Sort(unused)
	if len(unused) > 0 {
		t.Errorf("metrics without a panel: %v", unused)
	}
}

// The check itself: an unknown name, a histogram suffix on a counter, a
// query with no metric are reported; a histogram's suffixes are not.
func TestDashboardCheckCatchesUnknownNames(t *testing.T) {
	exposed := registeredNames(t)
	for expr, want := range map[string][]string{
		`rate(turnstile_core_turns_finished_totals[5m])`:                        {"turnstile_core_turns_finished_totals"},
		`rate(turnstile_core_frames_in_total_bucket[5m])`:                       {"turnstile_core_frames_in_total_bucket"},
		`sum(rate(turnstile_daemon_native_call_seconds_bucket{op="x"}[1m]))`:    nil,
		`turnstile_core_turn_duration_seconds_count / go_goroutines{job=~"$j"}`: nil,
		`vector(1)`: {"(no metric)"},
	} {
		if got := unknownRefs(expr, exposed); !slices.Equal(got, want) {
			t.Errorf("%s: %v, want %v", expr, got, want)
		}
	}
}
