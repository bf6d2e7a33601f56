package build

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"github.com/sf-dst/sf/lib/config"
)

// Package builds the Go package in dir for wasip1 into the folder out and
// returns the module's path there (named by its hash), with
// the files of replace (absolute path -> the file to compile instead)
// swapped in by a go build -overlay, and the net_overlay when the world
// asks for it, and the compat_overlay's shims likewise. sf-mutate builds its source mutants with it: the source tree
// is never touched, and the module goes to out, never into the world's
// store, so a mutant can never be taken for the real program.
func Package(w *config.World, dir string, replace map[string]string, out string) (string, error) {
	goCmd, err := findGo("")
	if err != nil {
		return "", err
	}
	all := map[string]string{}
	if w.NetOverlay {
		store := filepath.Join(Dir(w), "build")
		path, err := netOverlayFor(goCmd, store, dir)
		if err != nil {
			return "", err
		}
		var ov struct{ Replace map[string]string }
		data, err := os.ReadFile(path)
		if err == nil {
			err = json.Unmarshal(data, &ov)
		}
		if err != nil {
			return "", fmt.Errorf("reading the net_overlay: %w", err)
		}
		for k, v := range ov.Replace {
			all[k] = v
		}
	}
	var env []string
	if w.CompatOverlay {
		cs, err := compatFor(goCmd, filepath.Join(Dir(w), "build"), dir)
		if err != nil {
			return "", err
		}
		for k, v := range cs.replace {
			all[k] = v
		}
		if cs.gowork != "" {
			env = append(env, "GOWORK="+cs.gowork)
		}
	}
	for k, v := range replace {
		all[k] = v
	}
	data, _ := json.Marshal(struct{ Replace map[string]string }{all})
	overlay := filepath.Join(out, "overlay.json")
	if err := os.WriteFile(overlay, data, 0o644); err != nil {
		return "", err
	}
	defer os.Remove(overlay)
	mod, err := compile(goCmd, out, dir, buildFlags(overlay), env, w.NetOverlay, w.CompatOverlay)
	if err != nil {
		return "", err
	}
	return mod.Wasm, nil
}
