// assumerole does what a Go service configured to act as a role does, through the AWS SDK for Go (v1,
// as Debian packages it): its credentials come from stscreds' AssumeRoleProvider (STS AssumeRole, signed
// with the given keys), and with them it asks STS's GetCallerIdentity who it is and puts a record to
// each stream. It prints what each call answered as JSON, for the end-to-end suite.
//
//	assumerole -endpoint http://127.0.0.1:4573 -role arn:aws:iam::...:role/R -session name -streams a,b
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go/aws"
	"github.com/aws/aws-sdk-go/aws/awserr"
	"github.com/aws/aws-sdk-go/aws/credentials"
	"github.com/aws/aws-sdk-go/aws/credentials/stscreds"
	"github.com/aws/aws-sdk-go/aws/session"
	"github.com/aws/aws-sdk-go/service/firehose"
	"github.com/aws/aws-sdk-go/service/sts"
)

type report struct {
	AccessKeyID string            `json:"accessKeyId"`
	Expiration  string            `json:"expiration"`
	CallerArn   string            `json:"callerArn"`
	Puts        map[string]string `json:"puts"`
	Error       string            `json:"error,omitempty"`
}

// outcome is "ok", or the error's code and message.
func outcome(err error) string {
	if err == nil {
		return "ok"
	}
	if aerr, ok := err.(awserr.Error); ok {
		return aerr.Code() + ": " + aerr.Message()
	}
	return err.Error()
}

func main() {
	endpoint := flag.String("endpoint", "", "firehose-local's URL")
	region := flag.String("region", "us-east-1", "region")
	role := flag.String("role", "", "the role's ARN")
	sessionName := flag.String("session", "go-service", "the role session's name")
	duration := flag.Duration("duration", 15*time.Minute, "the session's duration")
	streams := flag.String("streams", "", "delivery streams, comma-separated")
	flag.Parse()

	out := report{Puts: map[string]string{}}
	defer func() {
		json.NewEncoder(os.Stdout).Encode(out)
	}()
	base := session.Must(session.NewSession(&aws.Config{
		Endpoint: endpoint, Region: region, MaxRetries: aws.Int(0),
		Credentials: credentials.NewStaticCredentials("test", "test", ""),
	}))
	assumed := stscreds.NewCredentials(base, *role, func(p *stscreds.AssumeRoleProvider) {
		p.RoleSessionName = *sessionName
		p.Duration = *duration
	})
	value, err := assumed.Get()
	if err != nil {
		out.Error = "AssumeRole: " + outcome(err)
		return
	}
	out.AccessKeyID = value.AccessKeyID
	if expires, err := assumed.ExpiresAt(); err == nil {
		out.Expiration = expires.UTC().Format(time.RFC3339)
	}
	signed := &aws.Config{Credentials: assumed}
	who, err := sts.New(base, signed).GetCallerIdentity(&sts.GetCallerIdentityInput{})
	if err != nil {
		out.CallerArn = outcome(err)
	} else {
		out.CallerArn = aws.StringValue(who.Arn)
	}
	client := firehose.New(base, signed)
	for _, stream := range strings.Split(*streams, ",") {
		_, err := client.PutRecord(&firehose.PutRecordInput{
			DeliveryStreamName: aws.String(stream), Record: &firehose.Record{Data: []byte(fmt.Sprintf("go as role to %s\n", stream))},
		})
		out.Puts[stream] = outcome(err)
	}
}
