package main

import (
	"os"

	"github.com/dedupstream/dedupstream/stream"
)

// kafkaSecurity reads the files named by kafka.tls and kafka.sasl and builds
// the pipeline's TLS configuration and SASL mechanism (stream.NewSecurity).
// k must be valid.
func kafkaSecurity(k stream.KafkaConfig) (stream.Security, error) {
	return stream.NewSecurity(k, os.ReadFile)
}

// toolSecurity reads the security settings "run" reads — kafka.tls and
// kafka.sasl of the configuration file at path (may be empty) and the
// DEDUPSTREAM_KAFKA_TLS_* and _SASL_* variables — for the tools that talk to
// a cluster: gen --topic, demo --brokers, bench --brokers.
func toolSecurity(path string) (stream.Security, error) {
	k, err := toolKafka(path)
	if err != nil {
		return stream.Security{}, err
	}
	return kafkaSecurity(k)
}

// toolKafka is the kafka section of the configuration at path (may be
// empty) with the environment applied, defaulted and valid.
func toolKafka(path string) (stream.KafkaConfig, error) {
	cfg, err := loadConfig(path, os.Environ())
	if err != nil {
		return stream.KafkaConfig{}, err
	}
	cfg.EnsureDefaults()
	return cfg.Kafka, cfg.Validate()
}
