import NIOCore
import NIOEmbedded
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
