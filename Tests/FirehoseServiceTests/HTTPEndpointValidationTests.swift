import FirehoseSink
import FirehoseWire
import Foundation
import Testing

@testable import FirehoseService

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
        // AWS's own scheme, as production definitions give it.
        let https = try Self.validate(Self.http(url: "https://http-intake.logs.datadoghq.com/api/v2/logs"))
        #expect(https.httpEndpoint?.url.scheme == "https")
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
                Self.http(url: "ftp://example.com/in"),
                "HttpEndpointDestinationConfiguration.EndpointConfiguration.Url",
                "InvalidArgumentException"
            ),
            (
                Self.http(url: "not a url"), "HttpEndpointDestinationConfiguration.EndpointConfiguration.Url",
                "InvalidArgumentException"
            ),
            (
                Self.http { $0.endpointConfiguration?.accessKey = "a\r\nX-Injected: 1" },
                "HttpEndpointDestinationConfiguration.EndpointConfiguration.AccessKey", "ValidationException"
            ),
            (
                Self.http { $0.endpointConfiguration?.accessKey = "a\u{0}b" },
                "HttpEndpointDestinationConfiguration.EndpointConfiguration.AccessKey", "InvalidArgumentException"
            ),
            (
                Self.http { $0.endpointConfiguration?.accessKey = "key\u{7F}" },
                "HttpEndpointDestinationConfiguration.EndpointConfiguration.AccessKey", "InvalidArgumentException"
            ),
            (
                Self.http { $0.endpointConfiguration?.accessKey = String(repeating: "é", count: 4097) },
                "HttpEndpointDestinationConfiguration.EndpointConfiguration.AccessKey", "ValidationException"
            ),
            (
                // 2,049 characters, 4,098 UTF-16 units: Java counts the units.
                Self.http { $0.endpointConfiguration?.accessKey = String(repeating: "😀", count: 2049) },
                "HttpEndpointDestinationConfiguration.EndpointConfiguration.AccessKey", "ValidationException"
            ),
            (
                Self.http { $0.endpointConfiguration?.name = " \t" },
                "HttpEndpointDestinationConfiguration.EndpointConfiguration.Name", "ValidationException"
            ),
            (
                Self.http {
                    $0.requestConfiguration = HttpEndpointRequestConfiguration(commonAttributes: [
                        HttpEndpointCommonAttribute(attributeName: "env", attributeValue: "line\u{2028}break")
                    ])
                },
                "HttpEndpointDestinationConfiguration.RequestConfiguration.CommonAttributes[0].AttributeValue",
                "ValidationException"
            ),
            (
                Self.http { $0.secretsManagerConfiguration = .object(["SecretARN": .string("x")]) },
                "HttpEndpointDestinationConfiguration.SecretsManagerConfiguration.Enabled", "ValidationException"
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

    @Test("The model's messages: an empty Url, a common attribute without a name, at 1-based member paths")
    func modelMessages() throws {
        let empty = try #require(Self.error(Self.http(url: "")))
        #expect(
            empty.error.message
                == "1 validation error detected: Value '*** Sensitive Data Redacted ***' at 'httpEndpointDestinationConfiguration.endpointConfiguration.url' failed to satisfy constraint: Member must have length greater than or equal to 1"
        )
        // A line break would be a header line of its own in the request sent to the URL.
        for url in ["http://127.0.0.1:8080/in\r\nX-Injected: 1", "http://127.0.0.1:8080/in\n", "https://h/\u{2028}"] {
            let broken = try #require(Self.error(Self.http(url: url)))
            #expect(broken.error.code == "ValidationException")
            #expect(
                broken.error.message
                    == "1 validation error detected: Value '*** Sensitive Data Redacted ***' at 'httpEndpointDestinationConfiguration.endpointConfiguration.url' failed to satisfy constraint: Member must satisfy regular expression pattern: https://.*"
            )
        }
        let unnamed = try #require(
            Self.error(
                Self.http {
                    $0.requestConfiguration = HttpEndpointRequestConfiguration(commonAttributes: [
                        HttpEndpointCommonAttribute(attributeName: "env", attributeValue: "ci"),
                        HttpEndpointCommonAttribute(attributeName: nil, attributeValue: "x"),
                    ])
                }))
        #expect(
            unnamed.field
                == "HttpEndpointDestinationConfiguration.RequestConfiguration.CommonAttributes[1].AttributeName")
        #expect(
            unnamed.error.message
                == "1 validation error detected: Value null at 'httpEndpointDestinationConfiguration.requestConfiguration.commonAttributes.2.member.attributeName' failed to satisfy constraint: Member must not be null"
        )
    }

    @Test("What the model's Java patterns allow is accepted: Unicode spaces, lengths in UTF-16 units, Enabled false")
    func javaPatternsAllow() throws {
        // 4,005 UTF-16 units (8,000 bytes of UTF-8 in the emoji alone).
        let key = "k\u{A0}e\u{3000}y" + String(repeating: "😀", count: 2000)
        let settings = try Self.validate(
            Self.http {
                $0.endpointConfiguration?.accessKey = key
                $0.endpointConfiguration?.name = "\u{A0}"
                $0.requestConfiguration = HttpEndpointRequestConfiguration(commonAttributes: [
                    HttpEndpointCommonAttribute(attributeName: "\u{2003}name", attributeValue: "")
                ])
                $0.secretsManagerConfiguration = .object(["Enabled": .bool(false)])
            })
        #expect(settings.httpEndpoint?.accessKey == key)
        #expect(settings.httpEndpoint?.commonAttributes == [.init(name: "\u{2003}name", value: "")])
    }

    @Test("An HTTP endpoint and an S3 destination together are refused")
    func onlyOneDestination() {
        let input = CreateDeliveryStreamInput(
            deliveryStreamName: "web",
            extendedS3DestinationConfiguration: ExtendedS3DestinationConfiguration(bucketARN: "arn:aws:s3:::b"),
            httpEndpointDestinationConfiguration: Self.http())
        let error = #expect(throws: StreamConfigurationError.self) {
            try DeliveryStreamSettings(validating: input, dataDirectory: nil)
        }
        #expect(error?.error.code == "InvalidArgumentException")
        #expect(error?.error.message.contains("HttpEndpointDestinationConfiguration or an S3 destination") == true)
    }
}
