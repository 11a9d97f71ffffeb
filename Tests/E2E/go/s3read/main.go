// s3read reads a bucket through the AWS SDK for Go (v1, as Debian packages it) and prints what it
// saw as JSON, for the end-to-end suite: every key by paging ListObjectsV2, each object's size and
// MD5 from GetObject, HeadObject's ETag, a ranged GetObject, and the error code of a missing key.
// With -upload, it instead sends a file with the SDK's upload manager (multipart, 5 MiB parts, five
// at once, from 5 MiB on), reads it back with its download manager (ranged GETs) and prints the
// object's ETag and the MD5 of what came back.
//
//	s3read -endpoint http://127.0.0.1:4573 -bucket b [-virtual-hosted]
//	s3read -endpoint http://127.0.0.1:4573 -bucket b -upload FILE -key KEY
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
	"github.com/aws/aws-sdk-go/service/s3/s3manager"
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
	upload := flag.String("upload", "", "a file to upload with the upload manager, then read back")
	key := flag.String("key", "", "the key -upload writes")
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
	sess := session.Must(session.NewSession(config))
	client := s3.New(sess)
	if *upload != "" {
		roundTrip(sess, client, *bucket, *key, *upload)
		return
	}

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

func roundTrip(sess *session.Session, client *s3.S3, bucket, key, path string) {
	file, err := os.Open(path)
	check(err)
	defer file.Close()
	_, err = s3manager.NewUploader(sess).Upload(&s3manager.UploadInput{Bucket: &bucket, Key: &key, Body: file})
	check(err)
	head, err := client.HeadObject(&s3.HeadObjectInput{Bucket: &bucket, Key: &key})
	check(err)
	buffer := aws.NewWriteAtBuffer(nil)
	downloader := s3manager.NewDownloader(sess, func(d *s3manager.Downloader) { d.PartSize = 5 << 20 })
	_, err = downloader.Download(buffer, &s3.GetObjectInput{Bucket: &bucket, Key: &key})
	check(err)
	sum := md5.Sum(buffer.Bytes())
	check(json.NewEncoder(os.Stdout).Encode(map[string]string{
		"etag": *head.ETag, "md5": hex.EncodeToString(sum[:]),
	}))
}

func check(err error) {
	if err != nil {
		os.Stderr.WriteString(err.Error() + "\n")
		os.Exit(1)
	}
}
