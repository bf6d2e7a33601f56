module github.com/sf-dst/sf/sim

go 1.26
