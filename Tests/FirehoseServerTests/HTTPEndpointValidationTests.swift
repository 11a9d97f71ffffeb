import FirehoseSink
import FirehoseWire
import Foundation
import Testing

@testable import FirehoseServer

@Suite("CreateDeliveryStream validation: HttpEndpointDestinationConfiguration")
struct HTTPEndpointValidationTests {
    static func http(
        url: String? = "http://127.0.0.1:8080/in?x=1",
        change: (inout HttpEndpointDestinationConfiguration) -> Void = { _ in }
    ) -> HttpEndpointDestinationConfiguration {
        var http = HttpEndpointDestinationConfiguration(
            endpointConfiguration: HttpEndpointConfiguration(url: url, name: "receiver", accessKey: "key"),
            s3Configuration: S3DestinationConfiguration(
                ExtendedS3DestinationConfiguration(bucketARN: "arn:aws:s3:::fails")))
        change(&http)
        return http
    }

    static func validate(_ http: HttpEndpointDestinationConfiguration) throws(StreamConfigurationError)
        -> DeliveryStreamSettings
    {
        try DeliveryStreamSettings(
            validating: CreateDeliveryStreamInput(
                deliveryStreamName: "web", httpEndpointDestinationConfiguration: http),
            dataDirectory: nil)
    }

    static func error(_ http: HttpEndpointDestinationConfiguration) -> StreamConfigurationError? {
        do {
            _ = try validate(http)
            return nil
        } catch {
            return error
        }
    }

    @Test("AWS's defaults are filled in; the S3 configuration takes what fails, nothing more")
    func defaults() throws {
        let settings = try Self.validate(Self.http())
        let endpoint = try #require(settings.httpEndpoint)
        #expect(endpoint.url.absoluteString == "http://127.0.0.1:8080/in?x=1")
        #expect(endpoint.accessKey == "key")
        #expect(endpoint.contentEncoding == .none && endpoint.commonAttributes.isEmpty)
        #expect(endpoint.retryDuration == .seconds(300) && endpoint.backupMode == .failedDataOnly)
        #expect(endpoint.deliveryStreamARN == "arn:aws:firehose:us-east-1:000000000000:deliverystream/web")
        #expect(settings.bufferSizeBytes == 5 * 1_048_576 && settings.bufferIntervalSeconds == 300)
        #expect(settings.bucket == "fails" && settings.backupStage?.bucket == "fails")
        #expect(!settings.backsUpSourceRecords)
        let allData = try Self.validate(Self.http { $0.s3BackupMode = "AllData" })
        #expect(allData.backsUpSourceRecords)
    }

    @Test(
        "A definition that breaks a rule names its member",
        arguments: [
            (
                Self.http { $0.s3Configuration = nil }, "HttpEndpointDestinationConfiguration.S3Configuration",
                "ValidationException"
            ),
            (
                Self.http(url: nil), "HttpEndpointDestinationConfiguration.EndpointConfiguration.Url",
                "ValidationException"
            ),
            (
                Self.http(url: "https://example.com/in"),
                "HttpEndpointDestinationConfiguration.EndpointConfiguration.Url",
                "InvalidArgumentException"
            ),
            (
                Self.http(url: "not a url"), "HttpEndpointDestinationConfiguration.EndpointConfiguration.Url",
                "InvalidArgumentException"
            ),
            (
                Self.http { $0.endpointConfiguration?.accessKey = "a\r\nX-Injected: 1" },
                "HttpEndpointDestinationConfiguration.EndpointConfiguration.AccessKey", "InvalidArgumentException"
            ),
            (
                Self.http { $0.bufferingHints = BufferingHints(sizeInMBs: 65, intervalInSeconds: 60) },
                "HttpEndpointDestinationConfiguration.BufferingHints.SizeInMBs", "ValidationException"
            ),
            (
                Self.http { $0.requestConfiguration = HttpEndpointRequestConfiguration(contentEncoding: "BR") },
                "HttpEndpointDestinationConfiguration.RequestConfiguration.ContentEncoding", "ValidationException"
            ),
            (
                Self.http { $0.retryOptions = HttpEndpointRetryOptions(durationInSeconds: 7201) },
                "HttpEndpointDestinationConfiguration.RetryOptions.DurationInSeconds", "ValidationException"
            ),
            (
                Self.http { $0.s3BackupMode = "Everything" }, "HttpEndpointDestinationConfiguration.S3BackupMode",
                "ValidationException"
            ),
            (
                Self.http { $0.secretsManagerConfiguration = .object(["Enabled": .bool(true)]) },
                "HttpEndpointDestinationConfiguration.SecretsManagerConfiguration", "InvalidArgumentException"
            ),
            (
                Self.http { $0.s3Configuration?.configuration.bucketARN = "arn:aws:s3:::Bad_Bucket!" },
                "HttpEndpointDestinationConfiguration.S3Configuration.BucketARN", "ValidationException"
            ),
        ] as [(HttpEndpointDestinationConfiguration, String, String)])
    func refused(http: HttpEndpointDestinationConfiguration, field: String, code: String) throws {
        let error = try #require(Self.error(http))
        #expect(error.field == field)
        #expect(error.error.code == code, "\(error)")
    }

    @Test("An HTTP endpoint and an S3 destination together are refused")
    func onlyOneDestination() {
        let input = CreateDeliveryStreamInput(
            deliveryStreamName: "web",
            extendedS3DestinationConfiguration: ExtendedS3DestinationConfiguration(bucketARN: "arn:aws:s3:::b"),
            httpEndpointDestinationConfiguration: Self.http())
        #expect(throws: StreamConfigurationError.self) {
            try DeliveryStreamSettings(validating: input, dataDirectory: nil)
        }
    }
}
