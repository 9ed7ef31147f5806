package main

import "github.com/dedupstream/dedupstream/stream/confkey"

const envPrefix = "DEDUPSTREAM_"

// applyEnv sets every config key that has a DEDUPSTREAM_<KEY> variable, where
// KEY is the YAML path upper-cased with dots as underscores
// (kafka.brokers → DEDUPSTREAM_KAFKA_BROKERS). Lists are comma-separated.
func applyEnv(c *Config, environ []string) error {
	return confkey.ApplyEnv(c, envPrefix, environ, crashPointEnv)
}

// envName is the DEDUPSTREAM_ variable of the key at path.
func envName(path string) string {
	return confkey.EnvName(envPrefix, path)
}

// setKey sets one configuration key by its YAML path.
func setKey(c *Config, key, value string) error {
	return confkey.Set(c, key, value)
}
