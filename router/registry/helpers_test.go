package registry_test

import "go.yaml.in/yaml/v3"

type yamlNode = yaml.Node

func unmarshalNode(data []byte, n *yaml.Node) error { return yaml.Unmarshal(data, n) }
