module example.com/guest

go 1.26

require (
	example.com/thirdparty v0.0.0
	github.com/antithesishq/antithesis-sdk-go v0.0.0
	github.com/sf-dst/sf/sim v0.0.0
)

replace (
	example.com/thirdparty => ../thirdparty
	github.com/antithesishq/antithesis-sdk-go => ../fake-antithesis
	github.com/sf-dst/sf/sim => ../../../../sim
)
