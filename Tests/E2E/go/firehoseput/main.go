// firehoseput sends records through the AWS SDK for Go (v1, as Debian packages it) the way a producer
// does when Firehose refuses some of them: PutRecordBatch, then again with the entries that came back
// with an ErrorCode, until none is left; the SDK itself retries refused requests (HTTP 5xx). It prints
// what it saw as JSON, for the end-to-end suite.
//
//	firehoseput -endpoint http://127.0.0.1:4573 -stream s -records 1000
//
// Record i is the text "go-<i>\n".
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"

	"github.com/aws/aws-sdk-go/aws"
	"github.com/aws/aws-sdk-go/aws/awserr"
	"github.com/aws/aws-sdk-go/aws/credentials"
	"github.com/aws/aws-sdk-go/aws/request"
	"github.com/aws/aws-sdk-go/aws/session"
	"github.com/aws/aws-sdk-go/service/firehose"
)

type report struct {
	Rounds         int            `json:"rounds"`
	Requests       int            `json:"requests"`
	FailedAttempts map[string]int `json:"failedAttempts"`
	FailedEntries  map[string]int `json:"failedEntries"`
	Error          string         `json:"error,omitempty"`
}

func main() {
	endpoint := flag.String("endpoint", "", "firehose-local's URL")
	region := flag.String("region", "us-east-1", "signing region")
	stream := flag.String("stream", "", "delivery stream")
	count := flag.Int("records", 100, "records to send")
	flag.Parse()

	out := report{FailedAttempts: map[string]int{}, FailedEntries: map[string]int{}}
	sess := session.Must(session.NewSession(&aws.Config{
		Endpoint:    endpoint,
		Region:      region,
		Credentials: credentials.NewStaticCredentials("test", "test", ""),
		MaxRetries:  aws.Int(10),
	}))
	client := firehose.New(sess)
	// Every attempt, including those the SDK retries on its own.
	client.Handlers.CompleteAttempt.PushBack(func(r *request.Request) {
		out.Requests++
		if aerr, ok := r.Error.(awserr.RequestFailure); ok {
			out.FailedAttempts[fmt.Sprintf("%s %d", aerr.Code(), aerr.StatusCode())]++
		}
	})

	pending := make([]*firehose.Record, *count)
	for i := range pending {
		pending[i] = &firehose.Record{Data: []byte(fmt.Sprintf("go-%d\n", i))}
	}
	for len(pending) > 0 && out.Rounds < 100 {
		out.Rounds++
		var failed []*firehose.Record
		for start := 0; start < len(pending); start += 500 {
			end := start + 500
			if end > len(pending) {
				end = len(pending)
			}
			batch := pending[start:end]
			answer, err := client.PutRecordBatch(&firehose.PutRecordBatchInput{
				DeliveryStreamName: stream, Records: batch,
			})
			if err != nil {
				// Retries spent: send the whole batch again next round.
				failed = append(failed, batch...)
				continue
			}
			for i, entry := range answer.RequestResponses {
				if entry.ErrorCode != nil {
					out.FailedEntries[*entry.ErrorCode+": "+aws.StringValue(entry.ErrorMessage)]++
					failed = append(failed, batch[i])
				}
			}
		}
		pending = failed
	}
	if len(pending) > 0 {
		out.Error = fmt.Sprintf("%d records still refused after %d rounds", len(pending), out.Rounds)
	}
	json.NewEncoder(os.Stdout).Encode(out)
	if out.Error != "" {
		os.Exit(1)
	}
}
