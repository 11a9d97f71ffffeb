// s3read reads a bucket through the AWS SDK for Go (v1, as Debian packages it) and prints what it
// saw as JSON, for the end-to-end suite: every key by paging ListObjectsV2, each object's size and
// MD5 from GetObject, HeadObject's ETag, a ranged GetObject, and the error code of a missing key.
//
//	s3read -endpoint http://127.0.0.1:4573 -bucket b [-virtual-hosted]
package main

import (
	"context"
	"crypto/md5"
	"encoding/hex"
	"encoding/json"
	"flag"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"

	"github.com/aws/aws-sdk-go/aws"
	"github.com/aws/aws-sdk-go/aws/awserr"
	"github.com/aws/aws-sdk-go/aws/credentials"
	"github.com/aws/aws-sdk-go/aws/session"
	"github.com/aws/aws-sdk-go/service/s3"
)

type object struct {
	Key      string `json:"key"`
	Size     int64  `json:"size"`
	MD5      string `json:"md5"`
	ETag     string `json:"etag"`
	HeadETag string `json:"headETag"`
}

type report struct {
	Pages       int      `json:"pages"`
	Objects     []object `json:"objects"`
	FirstBytes  string   `json:"firstBytes"`
	MissingCode string   `json:"missingCode"`
	Buckets     []string `json:"buckets"`
}

func main() {
	endpoint := flag.String("endpoint", "", "firehose-local's endpoint URL")
	bucket := flag.String("bucket", "", "bucket to read")
	virtualHosted := flag.Bool("virtual-hosted", false, "address the bucket as <bucket>.localhost")
	flag.Parse()

	config := aws.NewConfig().
		WithEndpoint(*endpoint).
		WithRegion("us-east-1").
		WithCredentials(credentials.NewStaticCredentials("test", "test", "")).
		WithS3ForcePathStyle(!*virtualHosted).
		WithMaxRetries(0)
	if *virtualHosted {
		// <bucket>.localhost need not resolve on every machine: dial the endpoint's own address,
		// while the request still names the bucket in its Host.
		target, err := url.Parse(*endpoint)
		check(err)
		dialer := &net.Dialer{}
		config = config.WithHTTPClient(&http.Client{Transport: &http.Transport{
			DialContext: func(ctx context.Context, network, _ string) (net.Conn, error) {
				return dialer.DialContext(ctx, network, net.JoinHostPort("127.0.0.1", target.Port()))
			},
		}})
	}
	client := s3.New(session.Must(session.NewSession(config)))

	var out report
	buckets, err := client.ListBuckets(&s3.ListBucketsInput{})
	check(err)
	for _, b := range buckets.Buckets {
		out.Buckets = append(out.Buckets, *b.Name)
	}
	err = client.ListObjectsV2Pages(
		&s3.ListObjectsV2Input{Bucket: bucket, MaxKeys: aws.Int64(2)},
		func(page *s3.ListObjectsV2Output, _ bool) bool {
			out.Pages++
			for _, entry := range page.Contents {
				got, err := client.GetObject(&s3.GetObjectInput{Bucket: bucket, Key: entry.Key})
				check(err)
				body, err := io.ReadAll(got.Body)
				check(err)
				got.Body.Close()
				sum := md5.Sum(body)
				head, err := client.HeadObject(&s3.HeadObjectInput{Bucket: bucket, Key: entry.Key})
				check(err)
				out.Objects = append(out.Objects, object{
					Key: *entry.Key, Size: int64(len(body)), MD5: hex.EncodeToString(sum[:]), ETag: *entry.ETag,
					HeadETag: *head.ETag,
				})
			}
			return true
		})
	check(err)
	if len(out.Objects) > 0 {
		ranged, err := client.GetObject(&s3.GetObjectInput{
			Bucket: bucket, Key: aws.String(out.Objects[0].Key), Range: aws.String("bytes=0-3")})
		check(err)
		first, err := io.ReadAll(ranged.Body)
		check(err)
		out.FirstBytes = hex.EncodeToString(first)
	}
	_, err = client.GetObject(&s3.GetObjectInput{Bucket: bucket, Key: aws.String("no/such/key")})
	if failure, ok := err.(awserr.Error); ok {
		out.MissingCode = failure.Code()
	}
	check(json.NewEncoder(os.Stdout).Encode(out))
}

func check(err error) {
	if err != nil {
		os.Stderr.WriteString(err.Error() + "\n")
		os.Exit(1)
	}
}
