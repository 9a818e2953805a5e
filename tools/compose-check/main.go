// Command compose-check loads Compose files with compose-go, the loader inside `docker compose`, and
// prints the project as `docker compose config --format json` would (plus the loader's warnings).
//
// It exists because the project's checks must run where there is no Docker engine and no compose
// plugin: loading through the real loader catches what a YAML parser cannot (schema violations,
// unknown keys, bad interpolation, depends_on naming a missing service, malformed ports), and the
// normalized output (interpolated, defaults applied, short syntax expanded) is what a test can
// compare with the code's own configuration.
//
// Unlike `docker compose`, it reads no environment of its own by default: variables come only from
// -e and -env-file, so a developer's shell or .env cannot change what a test sees. -os-env and
// -dotenv bring back compose's behaviour for interactive use.
//
// Usage:
//
//	compose-check [-e KEY=VALUE]... [-env-file FILE]... [-dotenv] [-os-env] [-project-dir DIR] FILE...
//
// Exit status: 0 with JSON on stdout; 1 when the project does not load (the loader's error on
// stderr); 2 on bad usage.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/compose-spec/compose-go/v2/cli"
	"github.com/sirupsen/logrus"
)

// repeated collects a flag given several times.
type repeated []string

func (r *repeated) String() string     { return strings.Join(*r, ",") }
func (r *repeated) Set(v string) error { *r = append(*r, v); return nil }

// warningHook keeps the loader's warnings (an unset variable defaulting to blank, the obsolete
// `version` attribute...): they are signs of a mistake that still loads, so the caller sees them.
type warningHook struct {
	mu       sync.Mutex
	messages []string
}

func (h *warningHook) Levels() []logrus.Level {
	return []logrus.Level{logrus.PanicLevel, logrus.FatalLevel, logrus.ErrorLevel, logrus.WarnLevel}
}

func (h *warningHook) Fire(e *logrus.Entry) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.messages = append(h.messages, e.Message)
	return nil
}

type output struct {
	// Project is the normalized model, as `docker compose config --format json` prints it.
	Project json.RawMessage `json:"project"`
	// Warnings are the loader's warnings, in order; empty when there were none.
	Warnings []string `json:"warnings"`
}

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

func run(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("compose-check", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var env, envFiles repeated
	fs.Var(&env, "e", "set a variable for interpolation, KEY=VALUE (repeatable)")
	fs.Var(&envFiles, "env-file", "read variables from a .env-style file (repeatable; later files do not override earlier ones)")
	osEnv := fs.Bool("os-env", false, "also use this process's environment, as docker compose does (-e wins over it)")
	dotenv := fs.Bool("dotenv", false, "also read .env in the project directory when no -env-file is given, as docker compose does")
	projectDir := fs.String("project-dir", "", "project directory (default: the first file's directory)")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: compose-check [-e KEY=VALUE]... [-env-file FILE]... [-dotenv] [-os-env] [-project-dir DIR] FILE...")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if fs.NArg() == 0 {
		fs.Usage()
		return 2
	}
	for _, kv := range env {
		if !strings.Contains(kv, "=") {
			fmt.Fprintf(stderr, "compose-check: -e %q: want KEY=VALUE\n", kv)
			return 2
		}
	}

	hook := &warningHook{}
	logrus.SetOutput(io.Discard)
	logrus.AddHook(hook)

	dir := *projectDir
	if dir == "" {
		dir = filepath.Dir(fs.Arg(0))
	}
	opts := []cli.ProjectOptionsFn{cli.WithWorkingDirectory(dir), cli.WithEnv(env)}
	if *osEnv {
		// After WithEnv: compose's Environment keeps the first value set, so -e wins.
		opts = append(opts, cli.WithOsEnv)
	}
	if len(envFiles) > 0 || *dotenv {
		// WithEnvFiles with no files picks <project dir>/.env when it exists, like docker compose.
		opts = append(opts, cli.WithEnvFiles(envFiles...), cli.WithDotEnv)
	}
	// Interpolation, normalization, path resolution, schema validation and consistency checks are
	// all on by default in compose-go, as in docker compose.
	options, err := cli.NewProjectOptions(fs.Args(), opts...)
	if err != nil {
		fmt.Fprintf(stderr, "compose-check: %v\n", err)
		return 1
	}
	project, err := options.LoadProject(context.Background())
	if err != nil {
		fmt.Fprintf(stderr, "compose-check: %v\n", err)
		return 1
	}
	model, err := project.MarshalJSON()
	if err != nil {
		fmt.Fprintf(stderr, "compose-check: %v\n", err)
		return 1
	}
	out, err := json.MarshalIndent(output{Project: model, Warnings: append([]string{}, hook.messages...)}, "", "  ")
	if err != nil {
		fmt.Fprintf(stderr, "compose-check: %v\n", err)
		return 1
	}
	fmt.Fprintln(stdout, string(out))
	return 0
}
