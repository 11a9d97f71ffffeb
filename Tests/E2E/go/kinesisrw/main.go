// kinesisrw does what a Go producer and consumer of a Kinesis data stream do, through the AWS SDK for
// Go (v1, as Debian packages it): CreateStream and its waiter, PutRecords, then every shard read from
// TRIM_HORIZON with GetShardIterator and GetRecords. It prints what it put and read as JSON, for the
// end-to-end suite.
//
//	kinesisrw -endpoint http://127.0.0.1:4573 -stream orders -records 1000
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"

	"github.com/aws/aws-sdk-go/aws"
	"github.com/aws/aws-sdk-go/aws/awserr"
	"github.com/aws/aws-sdk-go/aws/credentials"
	"github.com/aws/aws-sdk-go/aws/session"
	"github.com/aws/aws-sdk-go/service/kinesis"
)

type report struct {
	Put         int                 `json:"put"`
	ShardOfKey  map[string]string   `json:"shardOfKey"`
	Read        map[string][]string `json:"read"`
	BadIterator string              `json:"badIterator"`
	Error       string              `json:"error,omitempty"`
}

func outcome(err error) string {
	if aerr, ok := err.(awserr.Error); ok {
		return aerr.Code() + ": " + aerr.Message()
	}
	return err.Error()
}

func main() {
	endpoint := flag.String("endpoint", "", "firehose-local's URL")
	region := flag.String("region", "us-east-1", "region")
	stream := flag.String("stream", "", "data stream to create")
	records := flag.Int("records", 100, "records to put")
	flag.Parse()

	out := report{ShardOfKey: map[string]string{}, Read: map[string][]string{}}
	defer func() {
		json.NewEncoder(os.Stdout).Encode(out)
	}()
	client := kinesis.New(session.Must(session.NewSession(&aws.Config{
		Endpoint: endpoint, Region: region, MaxRetries: aws.Int(0),
		Credentials: credentials.NewStaticCredentials("test", "test", ""),
	})))
	if _, err := client.CreateStream(&kinesis.CreateStreamInput{StreamName: stream, ShardCount: aws.Int64(2)}); err != nil {
		out.Error = "CreateStream: " + outcome(err)
		return
	}
	if err := client.WaitUntilStreamExists(&kinesis.DescribeStreamInput{StreamName: stream}); err != nil {
		out.Error = "WaitUntilStreamExists: " + outcome(err)
		return
	}
	for start := 0; start < *records; start += 500 {
		var entries []*kinesis.PutRecordsRequestEntry
		for i := start; i < start+500 && i < *records; i++ {
			entries = append(entries, &kinesis.PutRecordsRequestEntry{
				PartitionKey: aws.String(fmt.Sprintf("key-%d", i)), Data: []byte(fmt.Sprintf("go %d", i))})
		}
		got, err := client.PutRecords(&kinesis.PutRecordsInput{StreamName: stream, Records: entries})
		if err != nil {
			out.Error = "PutRecords: " + outcome(err)
			return
		}
		if aws.Int64Value(got.FailedRecordCount) != 0 {
			out.Error = fmt.Sprintf("PutRecords: %d failed", aws.Int64Value(got.FailedRecordCount))
			return
		}
		for i, answer := range got.Records {
			out.ShardOfKey[aws.StringValue(entries[i].PartitionKey)] = aws.StringValue(answer.ShardId)
		}
		out.Put += len(entries)
	}
	shards, err := client.ListShards(&kinesis.ListShardsInput{StreamName: stream})
	if err != nil {
		out.Error = "ListShards: " + outcome(err)
		return
	}
	for _, shard := range shards.Shards {
		iterator, err := client.GetShardIterator(&kinesis.GetShardIteratorInput{
			StreamName: stream, ShardId: shard.ShardId, ShardIteratorType: aws.String("TRIM_HORIZON")})
		if err != nil {
			out.Error = "GetShardIterator: " + outcome(err)
			return
		}
		next := iterator.ShardIterator
		read := []string{}
		for {
			page, err := client.GetRecords(&kinesis.GetRecordsInput{ShardIterator: next, Limit: aws.Int64(300)})
			if err != nil {
				out.Error = "GetRecords: " + outcome(err)
				return
			}
			for _, record := range page.Records {
				read = append(read, string(record.Data))
			}
			next = page.NextShardIterator
			if len(page.Records) == 0 {
				break
			}
		}
		out.Read[aws.StringValue(shard.ShardId)] = read
	}
	_, err = client.GetRecords(&kinesis.GetRecordsInput{ShardIterator: aws.String("AAAAAAAAAAEnot-mine")})
	out.BadIterator = outcome(err)
}
