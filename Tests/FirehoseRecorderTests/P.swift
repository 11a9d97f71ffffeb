import Testing
@Test func b() {}
