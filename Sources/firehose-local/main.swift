import FirehoseLocalCLI

await FirehoseLocalCommand.run()
