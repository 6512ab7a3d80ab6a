package tests

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/clickgen/clickgen/profiles"
)

// k8sDir holds the Kubernetes manifests of segmented runs.
const k8sDir = "../../../generator/produce/play/k8s"

// indexedJob is the part of a batch/v1 Job the manifests rely on.
type indexedJob struct {
	APIVersion string `yaml:"apiVersion"`
	Kind       string `yaml:"kind"`
	Metadata   struct {
		Name string `yaml:"name"`
	} `yaml:"metadata"`
	Spec struct {
		CompletionMode string `yaml:"completionMode"`
		Completions    int    `yaml:"completions"`
		Parallelism    int    `yaml:"parallelism"`
		BackoffLimit   *int   `yaml:"backoffLimit"`
		Template       struct {
			Spec struct {
				RestartPolicy string `yaml:"restartPolicy"`
				Containers    []struct {
					Image   string   `yaml:"image"`
					Command []string `yaml:"command"`
					Args    []string `yaml:"args"`
					Env     []struct {
						Name  string `yaml:"name"`
						Value string `yaml:"value"`
					} `yaml:"env"`
				} `yaml:"containers"`
			} `yaml:"spec"`
		} `yaml:"template"`
	} `yaml:"spec"`
}

func loadJob(t *testing.T, name string) indexedJob {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(k8sDir, name))
	if err != nil {
		t.Fatal(err)
	}
	var j indexedJob
	dec := yaml.NewDecoder(strings.NewReader(string(data)))
	if err := dec.Decode(&j); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return j
}

// podEnv is the environment Kubernetes gives pod i of job j's container (what matters to
// clickgen: the container's env and the completion index), nothing inherited from the test.
func podEnv(j indexedJob, i int) []string {
	env := []string{"JOB_COMPLETION_INDEX=" + strconv.Itoa(i)}
	for _, e := range j.Spec.Template.Spec.Containers[0].Env {
		env = append(env, e.Name+"="+e.Value)
	}
	return env
}

// withBrokers returns args with the value of --brokers replaced by addr.
func withBrokers(t *testing.T, args []string, addr string) []string {
	t.Helper()
	out := slices.Clone(args)
	i := slices.Index(out, "--brokers")
	if i < 0 || i+1 >= len(out) {
		t.Fatalf("args %q: no --brokers", args)
	}
	out[i+1] = addr
	return out
}

// TestK8sManifests checks the Indexed Jobs: they parse, every pod runs one segment of
// --segments = completions = parallelism with nothing retried, the image is the Dockerfile's
// (whose entrypoint is clickgen, so the args are a clickgen command line), and the args parse
// with the verb's real flag set.
func TestK8sManifests(t *testing.T) {
	t.Parallel() // its own processes and brokers: see the package comment
	for _, name := range []string{"fill-job.yaml", "stress-job.yaml"} {
		t.Run(name, func(t *testing.T) {
			j := loadJob(t, name)
			s := j.Spec
			switch {
			case j.APIVersion != "batch/v1" || j.Kind != "Job":
				t.Errorf("%s %s, want batch/v1 Job", j.APIVersion, j.Kind)
			case s.CompletionMode != "Indexed":
				t.Errorf("completionMode %q, want Indexed (it sets JOB_COMPLETION_INDEX)", s.CompletionMode)
			case s.Parallelism != s.Completions:
				t.Errorf("parallelism %d, completions %d: a rate shape is shared by pods running at once", s.Parallelism, s.Completions)
			case s.BackoffLimit == nil || *s.BackoffLimit != 0:
				t.Error("backoffLimit must be 0: a retried segment sends its share twice")
			case s.Template.Spec.RestartPolicy != "Never":
				t.Errorf("restartPolicy %q, want Never", s.Template.Spec.RestartPolicy)
			case len(s.Template.Spec.Containers) != 1:
				t.Fatalf("%d containers, want 1", len(s.Template.Spec.Containers))
			}
			c := s.Template.Spec.Containers[0]
			if !strings.HasPrefix(c.Image, "clickgen:") || len(c.Command) != 0 {
				t.Errorf("image %q, command %q: want the Dockerfile's image and its entrypoint", c.Image, c.Command)
			}
			i := slices.Index(c.Args, "--segments")
			if i < 0 || i+1 >= len(c.Args) || c.Args[i+1] != strconv.Itoa(s.Completions) {
				t.Errorf("args %q: want --segments %d (the completions)", c.Args, s.Completions)
			}
			for _, e := range c.Env {
				if e.Name == "CLICKGEN_SEGMENT" || e.Name == "JOB_COMPLETION_INDEX" {
					t.Errorf("env %s: Kubernetes sets the index, the args the count", e.Name)
				}
			}
			// The real flag set parses the args (an unknown flag or bad value is exit 2); --help
			// stops before connecting.
			_, stderr, code := clickgen(t, append(slices.Clone(c.Args), "--help")...)
			if code != 0 {
				t.Errorf("clickgen %s --help: exit %d: %s", strings.Join(c.Args, " "), code, stderr)
			}
		})
	}
}

// runPods runs the job's pods as local processes, all at once, each with the environment
// Kubernetes sets (JOB_COMPLETION_INDEX=i) and the job's args with --brokers addr and extra;
// it returns their stderr.
func runPods(t *testing.T, ctx context.Context, bin, addr string, j indexedJob, extra ...string) []string {
	t.Helper()
	args := append(withBrokers(t, j.Spec.Template.Spec.Containers[0].Args, addr), extra...)
	out := make([]string, j.Spec.Completions)
	var wg sync.WaitGroup
	for i := range j.Spec.Completions {
		wg.Go(func() {
			cmd := exec.CommandContext(ctx, bin, args...)
			cmd.Env = podEnv(j, i)
			b, err := cmd.CombinedOutput()
			out[i] = string(b)
			if err != nil {
				t.Errorf("pod %d (%s): %v\n%s", i, strings.Join(args, " "), err, b)
			}
		})
	}
	wg.Wait()
	return out
}

// TestK8sIndexedJobLocally runs each Indexed Job as N local processes into one `clickgen
// broker` process. The fill's union must verify against the unsegmented run (verify over the
// whole topics); the stress pods, cut to a short duration at a lower total rate, must send
// together the total the shape allows, each about its share.
func TestK8sIndexedJobLocally(t *testing.T) {
	t.Parallel() // its own processes and brokers: see the package comment
	if testing.Short() {
		t.Skip("builds the command and runs the jobs' pods as processes")
	}
	bin := buildClickgen(t)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()

	t.Run("fill", func(t *testing.T) {
		_, addr := startBrokerProcess(t, ctx, bin)
		j := loadJob(t, "fill-job.yaml")
		runPods(t, ctx, bin, addr, j)
		p, err := profiles.Load("fill")
		if err != nil {
			t.Fatal(err)
		}
		p = p.WithDefaults()
		cmd := exec.CommandContext(ctx, bin, "verify", "--brokers", addr, "--day", strconv.Itoa(p.Play.Day), "--days", strconv.Itoa(p.Play.Days))
		cmd.Env = []string{}
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("verify of the union of %d segments: %v\n%s", j.Spec.Completions, err, out)
		}
		t.Logf("verify of the union of %d pods:\n%s", j.Spec.Completions, out)
	})

	t.Run("stress", func(t *testing.T) {
		_, addr := startBrokerProcess(t, ctx, bin)
		j := loadJob(t, "stress-job.yaml")
		const total, secs = 8000, 3 // messages per second over all pods, for a short run
		outs := runPods(t, ctx, bin, addr, j, "--rate", fmt.Sprintf("%d/s", total), "--duration", fmt.Sprintf("%ds", secs), "--scale", "1")
		sent := regexp.MustCompile(`hits: (\d+) sent, (\d+) acked, 0 failed`)
		sum := 0
		for i, o := range outs {
			m := sent.FindStringSubmatch(o)
			if m == nil {
				t.Fatalf("pod %d: no summary line:\n%s", i, o)
			}
			n, _ := strconv.Atoi(m[2])
			share := total * secs / j.Spec.Completions
			if n < share*9/10 || n > share+1 {
				t.Errorf("pod %d acked %d messages in %ds, want about its share %d", i, n, secs, share)
			}
			sum += n
		}
		if want := total * secs; sum < want*9/10 || sum > want+j.Spec.Completions {
			t.Errorf("the %d pods acked %d messages in %ds at a total of %d/s, want about %d", len(outs), sum, secs, total, want)
		}
	})
}
