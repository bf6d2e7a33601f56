module github.com/sf-dst/sf/examples

go 1.26

require github.com/sf-dst/sf/sim v0.0.0

require (
	github.com/antithesishq/antithesis-sdk-go v0.9.0
	go.etcd.io/bbolt v1.5.0
)

require golang.org/x/sys v0.45.0 // indirect

replace github.com/sf-dst/sf/sim => ../sim
