package schedule

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"time"

	"github.com/sf-dst/sf/lib/faults"
)

// duplicateKey returns the JSON path of the first key that an object of
// data holds twice ("faults[2].at", "seed"), or "" if none does. A bare
// list of faults is read as the faults of a schedule, so its paths start
// with "faults" too. encoding/json keeps the last of two values silently,
// which would let a hand-edited schedule say one thing and do another; the
// world-file reader refuses them too.
func duplicateKey(data []byte, bareList bool) string {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	root := ""
	if bareList {
		root = "faults"
	}
	path, _ := walkDup(dec, root)
	return path
}

// walkDup reads one value from dec; at is its path. It returns the path of
// a duplicate key inside it, if any.
func walkDup(dec *json.Decoder, at string) (string, error) {
	tok, err := dec.Token()
	if err != nil {
		return "", err
	}
	switch tok {
	case json.Delim('{'):
		seen := map[string]bool{}
		for dec.More() {
			kt, err := dec.Token()
			if err != nil {
				return "", err
			}
			k, _ := kt.(string)
			p := k
			if at != "" {
				p = at + "." + k
			}
			if seen[k] {
				return p, nil
			}
			seen[k] = true
			if dup, err := walkDup(dec, p); dup != "" || err != nil {
				return dup, err
			}
		}
		_, err := dec.Token() // '}'
		return "", err
	case json.Delim('['):
		for i := 0; dec.More(); i++ {
			if dup, err := walkDup(dec, at+"["+strconv.Itoa(i)+"]"); dup != "" || err != nil {
				return dup, err
			}
		}
		_, err := dec.Token() // ']'
		return "", err
	}
	return "", nil
}

// checkSet refuses what Check finds wrong across faults rather than in one:
// a node named twice in one group of a partition, a crash of a node
// that an earlier crash has not restarted yet, and a fault that repeats
// another exactly. Each would be read without complaint and then do
// nothing, or not what it says.
func (s *Schedule) checkSet() error {
	seen := map[string]int{}
	type down struct {
		i         int
		at, until Dur
	}
	crashes := map[string][]down{}
	for i, f := range s.Faults {
		key, err := json.Marshal(f)
		if err == nil {
			if j, dup := seen[string(key)]; dup {
				return fmt.Errorf("faults[%d]: the same fault as faults[%d]", i, j)
			}
			seen[string(key)] = i
		}
		if f.Kind == faults.KindPartition {
			// Groups may overlap: that is how a ring is written (two nodes
			// talk when some group holds both). A name twice in one group
			// is a slip.
			groups, field := f.Groups, "groups"
			if len(f.Side) > 0 {
				groups, field = [][]string{f.Side}, "side"
			}
			for j, g := range groups {
				where := fmt.Sprintf("%s[%d]", field, j)
				if field == "side" {
					where = "side"
				}
				in := map[string]bool{}
				for _, n := range g {
					if in[n] {
						return fmt.Errorf("faults[%d].%s: %q is named twice", i, where, n)
					}
					in[n] = true
				}
			}
		}
		if f.Kind == faults.KindCrash {
			for _, d := range crashes[f.Node] {
				if d.at <= f.At && f.At < d.until {
					return fmt.Errorf("faults[%d]: crashes %s at %s, while it is down from the crash of faults[%d] (%s to %s)",
						i, f.Node, durString(f.At), d.i, durString(d.at), durString(d.until))
				}
				if f.At <= d.at && d.at < f.Until {
					return fmt.Errorf("faults[%d]: crashes %s from %s to %s, while the crash of faults[%d] at %s would find it down",
						i, f.Node, durString(f.At), durString(f.Until), d.i, durString(d.at))
				}
			}
			crashes[f.Node] = append(crashes[f.Node], down{i, f.At, f.Until})
		}
	}
	return nil
}

func durString(d Dur) string { return time.Duration(d).String() }
