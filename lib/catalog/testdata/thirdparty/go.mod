module example.com/thirdparty

go 1.26

require github.com/sf-dst/sf/sim v0.0.0

replace github.com/sf-dst/sf/sim => ../../../../sim
