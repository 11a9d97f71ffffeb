import FirehoseService
import FirehoseSink
import FirehoseWire

extension LineDelimitedObjects {
    /// From the streams the server saved in the data directory (created through the API) and the
    /// configuration file; the configuration file wins, as it does in the server.
    static func load(dataDirectory: String, configPath: String?) throws(CLIError) -> LineDelimitedObjects {
        var definitions = LineDelimitedObjects()
        // An unreadable catalog means no saved streams here: the listing works without it.
        for record in (try? FirehoseSink.savedStreams(dataDirectory: dataDirectory)) ?? [] {
            definitions.add(record.definition, gzipLevel: 6)
        }
        if let configPath {
            let file: ConfigurationFile
            do {
                file = try ConfigurationFile.load(path: configPath)
            } catch {
                throw CLIError(message: error.description)
            }
            for definition in file.deliveryStreams { definitions.add(definition, gzipLevel: file.gzipLevel ?? 6) }
        }
        return definitions
    }

    /// A stream defined by a configuration file or the saved catalog; one that does not validate
    /// adds nothing.
    mutating func add(_ definition: CreateDeliveryStreamInput, gzipLevel: Int32) {
        guard
            let settings = try? DeliveryStreamSettings(
                validating: definition, gzipLevel: gzipLevel, dataDirectory: nil, lambdaFunctions: nil)
        else { return }
        add(settings)
    }
}
