module github.com/crawlkit/robots/examples/crawl

go 1.26.0

replace github.com/crawlkit/robots => ../..

require (
	github.com/crawlkit/robots v0.0.0-00010101000000-000000000000
	github.com/stretchr/testify v1.12.1
	golang.org/x/net v0.62.0
)

require (
	github.com/hashicorp/golang-lru/v2 v2.0.7 // indirect
	github.com/klauspost/compress v1.20.4 // indirect
	github.com/pquerna/cachecontrol v0.2.0 // indirect
	go.yaml.in/yaml/v3 v3.0.5 // indirect
	golang.org/x/text v0.43.0 // indirect
)
