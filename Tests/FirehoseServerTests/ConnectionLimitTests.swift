import HTTPTypes
import NIOCore
import NIOEmbedded
import NIOHTTPTypes
import Synchronization
import Testing

@testable import FirehoseServer

@Suite("Connection limit: idle keep-alive connections make room")
struct ConnectionLimitTests {
    private func channels(_ count: Int) throws -> [EmbeddedChannel] {
        try (0..<count).map { _ in
            let channel = EmbeddedChannel()
            try channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 1)).wait()
            return channel
        }
    }

    @Test func theConnectionIdleLongestIsClosedAndNewOrBusyOnesNever() throws {
        let connections = OpenConnections(limit: 10)
        let all = try channels(4)
        for channel in all { connections.opened(channel) }
        #expect(!connections.closeOldestIdle())  // new connections are not idle keep-alive ones
        #expect(connections.idle(all[2]))
        #expect(connections.idle(all[0]))
        #expect(connections.idle(all[1]))
        connections.busy(all[2])  // its next request arrived
        #expect(connections.idleCount == 2)
        #expect(connections.closeOldestIdle())
        #expect(!all[0].isActive && all[1].isActive && all[2].isActive && all[3].isActive)
        connections.closed(all[0])
        #expect(connections.closeOldestIdle())
        #expect(!all[1].isActive)
        connections.closed(all[1])
        #expect(!connections.closeOldestIdle())
        #expect(connections.count == 2)
    }

    @Test func atTheLimitAnAnsweredConnectionIsNotKeptAlive() throws {
        let connections = OpenConnections(limit: 2)
        let all = try channels(3)
        connections.opened(all[0])
        #expect(connections.idle(all[0]))
        connections.opened(all[1])
        #expect(!connections.idle(all[1]))
        #expect(connections.idleCount == 1)
    }

    @Test func theLimitEvictsOnlyWhenFull() throws {
        let connections = OpenConnections(limit: 2)
        var limit = EvictingConnectionLimit(maxConnections: 2, connections: connections)
        let all = try channels(2)
        limit.connectionOpened()
        connections.opened(all[0])
        #expect(connections.idle(all[0]))
        #expect(limit.isAcceptingNewConnections())
        #expect(all[0].isActive)
        limit.connectionOpened()
        connections.opened(all[1])
        #expect(!limit.isAcceptingNewConnections())
        #expect(!all[0].isActive)  // made room; its close lets the waiting client in
        limit.connectionClosed()
        #expect(limit.isAcceptingNewConnections())
    }
}

@Suite("Connection lifecycle: noticing that the client left")
struct ClientGoneTests {
    @Test func aClientClosingItsSideRunsWhatWaitsAndAnAnsweredRequestLeavesNothingBehind() throws {
        let handler = ConnectionLifecycle(OpenConnections(limit: 10))
        let channel = EmbeddedChannel(handler: handler)
        try channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 1)).wait()
        final class Calls: Sendable { let count = Mutex(0) }
        let calls = Calls()
        // A request that is answered: its action is dropped with the answer.
        handler.whenClientGone { calls.count.withLock { $0 += 1 } }
        try channel.writeOutbound(HTTPResponsePart.head(HTTPResponse(status: .ok)))
        try channel.writeOutbound(HTTPResponsePart.end(nil))
        // The next request waits; the client half-closes the connection.
        handler.whenClientGone { calls.count.withLock { $0 += 10 } }
        channel.pipeline.fireUserInboundEventTriggered(ChannelEvent.inputClosed)
        #expect(calls.count.withLock { $0 } == 10)
        // Registered after the client left: runs at once.
        handler.whenClientGone { calls.count.withLock { $0 += 100 } }
        #expect(calls.count.withLock { $0 } == 110)
        _ = try? channel.finish()
    }
}
