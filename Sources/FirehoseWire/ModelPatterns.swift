/// The API model's string patterns, which are Java regular expressions: there `.` matches any
/// character but a line terminator, and `\s` is ASCII whitespace only. Lengths are Java's, in
/// UTF-16 code units (`String.utf16.count`).
package enum ModelPattern {
    /// `.*`: no line terminator (LF, CR, NEL, LINE SEPARATOR, PARAGRAPH SEPARATOR).
    package static func isSingleLine(_ text: String) -> Bool {
        !text.unicodeScalars.contains { ["\n", "\r", "\u{85}", "\u{2028}", "\u{2029}"].contains($0) }
    }

    /// `^(?!\s*$).+`: one line, not empty, not only spaces, tabs, vertical tabs and form feeds.
    package static func isNonBlank(_ text: String) -> Bool {
        isSingleLine(text) && text.unicodeScalars.contains { ![" ", "\t", "\u{0B}", "\u{0C}"].contains($0) }
    }

    package static let nonBlankPattern = "^(?!\\s*$).+"
}
