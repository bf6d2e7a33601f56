module github.com/antithesishq/antithesis-sdk-go

go 1.26
