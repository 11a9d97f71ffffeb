import FirehoseSink
import FirehoseWire
import Foundation
import Testing

@testable import FirehoseService

@Suite("Firehose service parts")
struct FirehoseServiceTests {
    @Test func aKinesisSourcedStreamHasNoEncryptionToDescribeOrStart() throws {
        var definition = CreateDeliveryStreamInput(
            deliveryStreamName: "from-kinesis", deliveryStreamType: "KinesisStreamAsSource")
        let record = StreamRecord(definition: definition, createTime: Date(), origin: .api, activeAt: Date())
        #expect(ControlPlane.encryptionDescription(of: record) == nil)
        definition.deliveryStreamEncryptionConfigurationInput = .init(keyType: "AWS_OWNED_CMK")
        #expect(throws: StreamConfigurationError.self) {
            try DeliveryStreamSettings.checkSourceAndEncryption(definition)
        }
        definition.deliveryStreamEncryptionConfigurationInput = nil
        definition.directPutSourceConfiguration = .init(throughputHintInMBs: 5)
        #expect(throws: StreamConfigurationError.self) {
            try DeliveryStreamSettings.checkSourceAndEncryption(definition)
        }
    }

    @Test func recordIdsAreUnique() {
        let generator = RecordIDGenerator()
        let ids = (0..<10_000).map { _ in generator.next() }
        #expect(Set(ids).count == ids.count)
        #expect(ids.allSatisfy { $0.count == 40 && $0.allSatisfy(\.isNumber) })
    }

    @Test func recordIDsAreTheProcessPartThenTheZeroPaddedCounter() {
        let generator = RecordIDGenerator()
        let first = generator.next()
        let second = generator.next()
        #expect(first.prefix(20) == second.prefix(20))
        #expect(first.suffix(20) == "00000000000000000001")
        #expect(second.suffix(20) == "00000000000000000002")
    }
}
