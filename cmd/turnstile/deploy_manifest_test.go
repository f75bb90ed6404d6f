package main

import (
	"bytes"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/turnstile-sim/turnstile/core/store/pgstore/pgtest"
	"github.com/turnstile-sim/turnstile/internal/testgate"
	"go.yaml.in/yaml/v3"
)

// k8sObject is the part of a Kubernetes object the manifest test reads.
type k8sObject struct {
	Kind     string `yaml:"kind"`
	Metadata struct {
		Name   string            `yaml:"name"`
		Labels map[string]string `yaml:"labels"`
	} `yaml:"metadata"`
	Spec struct {
		Replicas int              `yaml:"replicas"`
		Selector yaml.Node        `yaml:"selector"`
		Ports    []k8sServicePort `yaml:"ports"`
		Template k8sPodTemplate   `yaml:"template"`
	} `yaml:"spec"`
}

type k8sServicePort struct {
	Port       int    `yaml:"port"`
	TargetPort string `yaml:"targetPort"`
}

type k8sPodTemplate struct {
	Metadata struct {
		Labels map[string]string `yaml:"labels"`
	} `yaml:"metadata"`
	Spec struct {
		Containers []k8sContainer `yaml:"containers"`
		Volumes    []struct {
			Name   string `yaml:"name"`
			Secret struct {
				SecretName string `yaml:"secretName"`
				Items      []struct{ Key, Path string }
			} `yaml:"secret"`
		} `yaml:"volumes"`
	} `yaml:"spec"`
}

type k8sProbe struct {
	HTTPGet struct {
		Path string `yaml:"path"`
		Port string `yaml:"port"`
	} `yaml:"httpGet"`
}

type k8sEnv struct {
	Name      string `yaml:"name"`
	ValueFrom struct {
		SecretKeyRef struct{ Name, Key string } `yaml:"secretKeyRef"`
	} `yaml:"valueFrom"`
}

type k8sContainer struct {
	Command []string `yaml:"command"`
	Args    []string `yaml:"args"`
	Env     []k8sEnv `yaml:"env"`
	Ports   []struct {
		Name          string `yaml:"name"`
		ContainerPort int    `yaml:"containerPort"`
	} `yaml:"ports"`
	ReadinessProbe k8sProbe `yaml:"readinessProbe"`
	LivenessProbe  k8sProbe `yaml:"livenessProbe"`
	VolumeMounts   []struct {
		Name      string `yaml:"name"`
		MountPath string `yaml:"mountPath"`
	} `yaml:"volumeMounts"`
}

// readManifest reads the active–standby manifest's objects by kind.
func readManifest(t *testing.T) map[string]k8sObject {
	t.Helper()
	raw, err := os.ReadFile("../../deploy/kubernetes/core-active-standby.yaml")
	if err != nil {
		t.Fatal(err)
	}
	objs := map[string]k8sObject{}
	dec := yaml.NewDecoder(bytes.NewReader(raw))
	for {
		var o k8sObject
		if err := dec.Decode(&o); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			t.Fatal(err)
		}
		objs[o.Kind] = o
	}
	return objs
}

// TestActiveStandbyManifest checks deploy/kubernetes/core-active-standby.yaml
// against the binary: a Deployment of two `turnstile core` replicas whose
// flags turnstile core accepts, whose store comes from the Secret through
// TURNSTILE_STORE (a variable core reads), whose operator token file is
// the mounted Secret item, whose probes name the port it listens on and
// the paths a standby answers (/healthz 200 alive, /readyz 503 not
// ready), and a Service selecting its pods on that port.
func TestActiveStandbyManifest(t *testing.T) {
	objs := readManifest(t)
	dep, svc := objs["Deployment"], objs["Service"]
	if dep.Spec.Replicas != 2 || len(dep.Spec.Template.Spec.Containers) != 1 || svc.Kind != "Service" {
		t.Fatalf("want a Deployment of 2 replicas with one container and a Service: %+v", objs)
	}
	c := dep.Spec.Template.Spec.Containers[0]
	if !slices.Equal(c.Command, []string{"turnstile", "core"}) {
		t.Fatalf("command %q", c.Command)
	}
	// Every flag parses on turnstile core: -h after them exits 0 only if
	// each one before it is defined and its value valid.
	code, _, errOut := cli{t: t}.run(append(append([]string{"core"}, c.Args...), "-h")...)
	if code != exitOK {
		t.Fatalf("turnstile core refuses the manifest's flags %q: exit %d\n%s", c.Args, code, errOut)
	}
	flagValue := func(name string) string {
		i := slices.Index(c.Args, name)
		if i < 0 || i+1 >= len(c.Args) {
			t.Fatalf("the manifest passes no %s", name)
		}
		return c.Args[i+1]
	}
	for _, e := range c.Env {
		if !strings.Contains(errOut, "("+e.Name+")") {
			t.Errorf("turnstile core reads no variable %s", e.Name)
		}
	}
	if i := slices.IndexFunc(c.Env, func(e k8sEnv) bool { return e.Name == "TURNSTILE_STORE" }); i < 0 || c.Env[i].ValueFrom.SecretKeyRef.Name != "turnstile-core" || c.Env[i].ValueFrom.SecretKeyRef.Key == "" {
		t.Fatalf("the store URL does not come from the Secret through TURNSTILE_STORE: %+v", c.Env)
	}
	// The operator token file is the Secret's item, mounted.
	tokenFile := flagValue("-operator-token-file")
	mounted := false
	for _, m := range c.VolumeMounts {
		for _, v := range dep.Spec.Template.Spec.Volumes {
			if v.Name != m.Name || v.Secret.SecretName != "turnstile-core" {
				continue
			}
			for _, it := range v.Secret.Items {
				mounted = mounted || path.Join(m.MountPath, it.Path) == tokenFile
			}
		}
	}
	if !mounted {
		t.Fatalf("-operator-token-file %s is no mounted item of the Secret", tokenFile)
	}
	// The probes reach the listening port by name, at the paths served.
	listen := flagValue("-listen")
	if len(c.Ports) != 1 || !strings.HasSuffix(listen, ":"+strconv.Itoa(c.Ports[0].ContainerPort)) {
		t.Fatalf("-listen %s, container ports %+v", listen, c.Ports)
	}
	port := c.Ports[0].Name
	h := standbyHandler()
	for _, p := range []struct {
		probe k8sProbe
		path  string
		code  int
	}{{c.ReadinessProbe, "/readyz", http.StatusServiceUnavailable}, {c.LivenessProbe, "/healthz", http.StatusOK}} {
		if p.probe.HTTPGet.Path != p.path || p.probe.HTTPGet.Port != port {
			t.Errorf("probe %+v, want %s on port %s", p.probe, p.path, port)
		}
		w := httptest.NewRecorder()
		h.ServeHTTP(w, httptest.NewRequest("GET", p.probe.HTTPGet.Path, nil))
		if w.Code != p.code {
			t.Errorf("a standby answers %s with %d, want %d", p.probe.HTTPGet.Path, w.Code, p.code)
		}
	}
	// The Service selects the pods and targets the port.
	var sel map[string]string
	if err := svc.Spec.Selector.Decode(&sel); err != nil || len(sel) == 0 {
		t.Fatalf("service selector: %v", err)
	}
	for k, v := range sel {
		if dep.Spec.Template.Metadata.Labels[k] != v {
			t.Errorf("the Service selects %s=%s, the pods carry %v", k, v, dep.Spec.Template.Metadata.Labels)
		}
	}
	if len(svc.Spec.Ports) != 1 || svc.Spec.Ports[0].TargetPort != port {
		t.Errorf("service ports %+v, want target port %s", svc.Spec.Ports, port)
	}
	if pub := flagValue("-public-url"); !strings.Contains(pub, svc.Metadata.Name+":"+strconv.Itoa(svc.Spec.Ports[0].Port)) {
		t.Errorf("-public-url %s is not the Service's address", pub)
	}
}

// TestActiveStandbyManifestRunsThePair runs the manifest's pod twice, as
// its Deployment would, on a real PostgreSQL schema: the container's
// command line as written (its listen address on a free loopback port
// instead of 0.0.0.0:8080, the mounted token file at a scratch path), the
// store from TURNSTILE_STORE as the Secret gives it. Exactly one pod is
// ready by its readiness probe, the other alive but not ready by its
// probes; when the ready pod is killed, the other becomes ready within
// the takeover bound, which is what the Service follows. No Kubernetes
// runs here: the scheduler and the kubelet are left out, the pods are not.
func TestActiveStandbyManifestRunsThePair(t *testing.T) {
	testgate.Long(t) // two real Core processes and a lease expiry
	dsn := pgtest.Schema(t)
	c := readManifest(t)["Deployment"].Spec.Template.Spec.Containers[0]
	token := filepath.Join(t.TempDir(), "operator-token")
	if err := os.WriteFile(token, []byte("manifest-operator-token\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	pod := func(msg string) *coreProc {
		args := append([]string{"core"}, c.Args...)
		for i := 1; i < len(args); i++ {
			switch args[i-1] {
			case "-listen":
				args[i] = "127.0.0.1:0"
			case "-operator-token-file":
				args[i] = token
			}
		}
		p, err := startCoreArgs(msg, args, "TURNSTILE_STORE="+dsn)
		if err != nil {
			t.Fatal(err)
		}
		p.t = t
		t.Cleanup(p.stop)
		return p
	}
	probe := func(p *coreProc, pr k8sProbe) int {
		resp, err := http.Get(p.base + pr.HTTPGet.Path)
		if err != nil {
			t.Fatalf("probe %s: %v", pr.HTTPGet.Path, err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	active := pod(msgListening)
	standby := pod(msgStandby)
	for _, p := range []struct {
		pod   *coreProc
		ready int
		role  string
	}{{active, http.StatusOK, "active"}, {standby, http.StatusServiceUnavailable, "standby"}} {
		if got := probe(p.pod, c.ReadinessProbe); got != p.ready {
			t.Fatalf("the %s pod's readiness probe answered %d, want %d", p.role, got, p.ready)
		}
		if got := probe(p.pod, c.LivenessProbe); got != http.StatusOK {
			t.Fatalf("the %s pod's liveness probe answered %d", p.role, got)
		}
	}
	active.kill()
	if !standby.await(`"msg":"`+msgListening+`"`, 3*takeoverMax) {
		t.Fatalf("the standby pod did not take over:\n%s", standby.stderr.String())
	}
	if got := probe(standby, c.ReadinessProbe); got != http.StatusOK {
		t.Fatalf("after the takeover the readiness probe answered %d", got)
	}
}
