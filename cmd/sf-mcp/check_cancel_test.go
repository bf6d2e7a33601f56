package main

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/sf-dst/sf/lib/check"
)

// TestCheckCancel: a cancelled sf_check stops its check, which on
// kv-hard.jsonl with a 10-minute limit would hold the server for those 10
// minutes, so the next call gets the server at once.
func TestCheckCancel(t *testing.T) {
	dir := t.TempDir()
	for _, f := range []string{"kv-hard.jsonl", "queue-ok.jsonl"} {
		data, err := os.ReadFile(filepath.Join(tools.Root, "cmd/sf-check/testdata", f))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, f), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cs := connect(t, dir)

	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	_, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "sf_check", Arguments: map[string]any{"history": "kv-hard.jsonl", "timeout": "10m"}})
	cancel()
	if err == nil {
		t.Fatal("sf_check of kv-hard.jsonl finished within 2s")
	}
	// The next call fails if the cancelled check still holds the server a
	// minute on.
	ctx, cancel = context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "sf_check", Arguments: map[string]any{"history": "queue-ok.jsonl", "model": "queue"}})
	if err != nil {
		t.Fatalf("the call after the cancelled sf_check: %v", err)
	}
	if res.IsError {
		t.Fatalf("the call after the cancelled sf_check: tool error %s", text(res))
	}
	if m, _ := res.StructuredContent.(map[string]any); m["verdict"] != string(check.Ok) {
		t.Errorf("the call after the cancelled sf_check: %v", res.StructuredContent)
	}
}
