package config

import (
	"fmt"
	"reflect"
	"slices"
	"testing"
)

func TestParseSeeds(t *testing.T) {
	tests := []struct {
		name, in string
		want     []uint64
	}{
		{"one seed", "7", []uint64{7}},
		{"zero", "0", []uint64{0}},
		{"range", "1-5", []uint64{1, 2, 3, 4, 5}},
		{"one-seed range", "3-3", []uint64{3}},
		{"list", "1-5,9,20-22", []uint64{1, 2, 3, 4, 5, 9, 20, 21, 22}},
		{"spaces", " 1 - 2 , 9 ", []uint64{1, 2, 9}},
		{"order kept", "9,1-2", []uint64{9, 1, 2}},
		{"repeats removed keeping the first", "5,1-6,2", []uint64{5, 1, 2, 3, 4, 6}},
		{"largest seed", "18446744073709551614-18446744073709551615", []uint64{1<<64 - 2, 1<<64 - 1}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseSeeds(tt.in)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("ParseSeeds(%q) = %v, want %v", tt.in, got, tt.want)
			}
		})
	}
}

func TestParseSeedsErrors(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{"empty", "", "empty seed list"},
		{"blank", "  ", "empty seed list"},
		{"not a number", "a", `seed list "a": "a" is not a seed: want a number like 7 or a range like 1-100`},
		{"reversed", "5-1", `seed list "5-1": range "5-1" is reversed: 5 > 1`},
		{"no end", "0-", `seed list "0-": range "0-" has no end`},
		{"no start", "1,-5", `seed list "1,-5": "-5" is negative: seeds are 0 or more`},
		{"negative end", "1--5", `seed list "1--5": range "1--5" has a negative end: seeds are 0 or more`},
		{"empty item", "1,,2", `seed list "1,,2": empty item`},
		{"trailing comma", "1,", `seed list "1,": empty item`},
		{"bad end", "1-x", `seed list "1-x": "x" is not a seed: want a number like 7 or a range like 1-100`},
		{"three parts", "1-2-3", `seed list "1-2-3": "2-3" is not a seed: want a number like 7 or a range like 1-100`},
		{"sign", "+1", `seed list "+1": "+1" is not a seed: want a number like 7 or a range like 1-100`},
		{"too large", "18446744073709551616", `seed list "18446744073709551616": seed 18446744073709551616 is larger than 18446744073709551615`},
		{"too many in one range", "0-10000000", `seed list "0-10000000": more than 10000000 seeds`},
		{"too many in all", "1-9999999,0,5", `seed list "1-9999999,0,5": more than 10000000 seeds`},
		{"whole range", "0-18446744073709551615", `seed list "0-18446744073709551615": more than 10000000 seeds`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseSeeds(tt.in)
			if err == nil {
				t.Fatalf("ParseSeeds(%q) = %d seeds, want error %q", tt.in, len(got), tt.want)
			}
			if err.Error() != tt.want {
				t.Errorf("ParseSeeds(%q) error\n got: %s\nwant: %s", tt.in, err, tt.want)
			}
		})
	}
}

func TestParseSeedsLimit(t *testing.T) {
	if testing.Short() {
		t.Skip("allocates MaxSeeds seeds")
	}
	got, err := ParseSeeds(fmt.Sprintf("1-%d", MaxSeeds))
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != MaxSeeds || got[0] != 1 || got[MaxSeeds-1] != MaxSeeds {
		t.Errorf("ParseSeeds of MaxSeeds seeds: %d seeds from %d to %d", len(got), got[0], got[len(got)-1])
	}
}

// TestFormatSeeds: a list written by FormatSeeds reads back as the same
// seeds.
func TestFormatSeeds(t *testing.T) {
	for _, seeds := range [][]uint64{{1}, {1, 2, 3, 5}, {9, 3, 4, 10}, {0, 18446744073709551615}} {
		text := FormatSeeds(seeds)
		back, err := ParseSeeds(text)
		if err != nil || !slices.Equal(back, seeds) {
			t.Errorf("%v: %q reads back as %v, %v", seeds, text, back, err)
		}
	}
	if got := FormatSeeds([]uint64{1, 2, 3, 5}); got != "1-3,5" {
		t.Errorf("got %q", got)
	}
}
