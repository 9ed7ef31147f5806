package shard

import (
	"context"
	"time"

	"github.com/segmentio/kafka-go"
	"go.uber.org/zap"
)

// Open is the start of an instance of a sharded filter: it creates or
// checks the group's internal topics (EnsureTopics) and builds the front
// that routes the instance's probes and the server of the shards it will
// own, both with o's connections, logger and registry.
func Open(cfg Config, o ServerOptions) (*Front, *Server, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	transport := o.Security.Transport(o.Kafka.ClientID)
	defer transport.CloseIdleConnections()
	client := &kafka.Client{Addr: kafka.TCP(o.Kafka.Brokers...), Transport: transport}
	top, err := EnsureTopics(ctx, client, o.Kafka.Input, o.Kafka.Group, cfg, o.State.TTL)
	if err != nil {
		return nil, nil, err
	}
	if o.Logger == nil {
		o.Logger = zap.NewNop()
	}
	o.Logger.Info("sharded index", zap.Int("shards", top.Shards), zap.Int("input_partitions", top.InputPartitions),
		zap.String("sequence", SequenceTopic(o.Kafka.Group)), zap.String("answers", AnswersTopic(o.Kafka.Group)))
	front := NewFront(cfg, top, FrontOptions{Kafka: o.Kafka, Security: o.Security, Logger: o.Logger, Registry: o.Registry})
	return front, NewServer(cfg, top, o), nil
}
