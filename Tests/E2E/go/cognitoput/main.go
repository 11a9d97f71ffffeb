// cognitoput does what a Go client of a mobile backend does with a Cognito identity pool, through the
// AWS SDK for Go (v1, as Debian packages it): GetId and GetCredentialsForIdentity (unsigned, as the SDK
// sends them), then STS's GetCallerIdentity and PutRecord to each stream with those credentials; with
// -after-expiry, PutRecord once more after the credentials expired. It prints what each call answered as JSON, for the end-to-end suite.
//
//	cognitoput -endpoint http://127.0.0.1:4573 -pool us-east-1:... -streams a,b [-after-expiry]
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
	"github.com/aws/aws-sdk-go/aws/session"
	"github.com/aws/aws-sdk-go/service/cognitoidentity"
	"github.com/aws/aws-sdk-go/service/firehose"
	"github.com/aws/aws-sdk-go/service/sts"
)

type report struct {
	IdentityID  string            `json:"identityId"`
	AccessKeyID string            `json:"accessKeyId"`
	Expiration  string            `json:"expiration"`
	CallerArn   string            `json:"callerArn"`
	Puts        map[string]string `json:"puts"`
	AfterExpiry string            `json:"afterExpiry,omitempty"`
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
	pool := flag.String("pool", "", "identity pool id")
	streams := flag.String("streams", "", "delivery streams, comma-separated")
	afterExpiry := flag.Bool("after-expiry", false, "put to the first stream again once the credentials expired")
	flag.Parse()

	out := report{Puts: map[string]string{}}
	defer func() {
		json.NewEncoder(os.Stdout).Encode(out)
	}()
	base := session.Must(session.NewSession(&aws.Config{
		Endpoint: endpoint, Region: region, MaxRetries: aws.Int(0),
		// The identity calls need none; the SDK sends them unsigned.
		Credentials: credentials.AnonymousCredentials,
	}))
	identity := cognitoidentity.New(base)
	id, err := identity.GetId(&cognitoidentity.GetIdInput{IdentityPoolId: pool})
	if err != nil {
		out.Error = "GetId: " + outcome(err)
		return
	}
	out.IdentityID = aws.StringValue(id.IdentityId)
	got, err := identity.GetCredentialsForIdentity(&cognitoidentity.GetCredentialsForIdentityInput{IdentityId: id.IdentityId})
	if err != nil {
		out.Error = "GetCredentialsForIdentity: " + outcome(err)
		return
	}
	c := got.Credentials
	out.AccessKeyID = aws.StringValue(c.AccessKeyId)
	out.Expiration = c.Expiration.UTC().Format(time.RFC3339)
	signed := &aws.Config{Credentials: credentials.NewStaticCredentials(
		aws.StringValue(c.AccessKeyId), aws.StringValue(c.SecretKey), aws.StringValue(c.SessionToken))}
	who, err := sts.New(base, signed).GetCallerIdentity(&sts.GetCallerIdentityInput{})
	if err != nil {
		out.CallerArn = outcome(err)
	} else {
		out.CallerArn = aws.StringValue(who.Arn)
	}
	client := firehose.New(base, signed)
	names := strings.Split(*streams, ",")
	for _, stream := range names {
		_, err := client.PutRecord(&firehose.PutRecordInput{
			DeliveryStreamName: aws.String(stream), Record: &firehose.Record{Data: []byte(fmt.Sprintf("go to %s\n", stream))},
		})
		out.Puts[stream] = outcome(err)
	}
	if *afterExpiry {
		time.Sleep(time.Until(*c.Expiration) + 500*time.Millisecond)
		_, err := client.PutRecord(&firehose.PutRecordInput{
			DeliveryStreamName: aws.String(names[0]), Record: &firehose.Record{Data: []byte("too late\n")},
		})
		out.AfterExpiry = outcome(err)
	}
}
