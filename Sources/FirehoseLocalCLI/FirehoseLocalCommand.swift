public import ArgumentParser

public struct FirehoseLocalCommand: AsyncParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "firehose-local",
        abstract: "Amazon Kinesis Data Firehose on your machine, delivering into a local directory.",
        discussion: """
            Point any Firehose client (boto3, the AWS CLI, the AWS SDKs, Fluent Bit) at \
            http://127.0.0.1:4573 and objects appear under <data-dir>/<bucket>/ with the keys real \
            Firehose would write. `serve` (the default) runs the server; `flush`, `objects`, `cat` and \
            `tail` are for tests and scripts: deliver buffers now, list delivered objects, print one, \
            print records as their objects appear.
            """,
        version: BuildInfo.versionLine,
        subcommands: [ServeCommand.self, FlushCommand.self, ObjectsCommand.self, CatCommand.self, TailCommand.self],
        defaultSubcommand: ServeCommand.self
    )

    public init() {}

    /// Entry point of the executable, so it needs no ArgumentParser import of its own.
    public static func run() async {
        await main()
    }
}
