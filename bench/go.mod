module github.com/crawlkit/robots/bench

go 1.26.8

replace github.com/crawlkit/robots => ../

require (
	github.com/crawlkit/robots v0.0.0-00010101000000-000000000000
	github.com/jimsmart/grobotstxt v1.0.3
	github.com/stretchr/testify v1.12.1
	github.com/temoto/robotstxt v1.1.2
)

require go.yaml.in/yaml/v3 v3.0.5 // indirect
