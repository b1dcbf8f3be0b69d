package dev.sluice.core.store.redis;

import dev.sluice.config.StoreConfig;
import dev.sluice.core.store.FleetBackend;
import dev.sluice.core.store.QuotaStore;
import dev.sluice.core.store.SyncReply;
import dev.sluice.core.store.SyncRequest;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.JedisClientConfig;
import redis.clients.jedis.exceptions.JedisNoScriptException;

/**
 * The shared state in Redis: one Lua script ({@code sync.lua}) applies a whole {@link SyncRequest}
 * atomically in one round trip, over keys that share the hash tag {@code {sluice}} (one slot, so a
 * cluster runs it on one node too). Time comes from Redis's own clock, so instances with skewed
 * clocks still refill token buckets alike.
 *
 * <p>One connection (Jedis), used by the store's thread only; connect and read time out at the
 * configured store timeout, after which the store falls back to local limits. A broken connection
 * is dropped and made again at the next round trip.
 */
public final class RedisBackend implements FleetBackend {

    /** Prefix of every key: the hash tag keeps them in one slot. */
    static final String PREFIX = "{sluice}:";

    static final String ALIVE_KEY = PREFIX + "alive";
    static final String BUCKET_PREFIX = PREFIX + "b:";

    private static final String SCRIPT = load("sync.lua");

    private final HostAndPort address;
    private final JedisClientConfig clientConfig;
    private final String described;
    private final AtomicLong calls = new AtomicLong();
    private Jedis jedis;
    private String sha;

    private RedisBackend(HostAndPort address, JedisClientConfig clientConfig, String described) {
        this.address = address;
        this.clientConfig = clientConfig;
        this.described = described;
    }

    /** A backend for a {@code redis://} or {@code rediss://} store config. */
    public static RedisBackend of(StoreConfig config) {
        if (!config.isRedis()) {
            throw new IllegalArgumentException("not a Redis store: " + config);
        }
        int timeoutMillis =
                (int) Math.max(1, Math.min(Integer.MAX_VALUE, config.timeout().toMillis()));
        DefaultJedisClientConfig.Builder b = DefaultJedisClientConfig.builder()
                .connectionTimeoutMillis(timeoutMillis)
                .socketTimeoutMillis(timeoutMillis)
                .database(config.database())
                .ssl(config.tls())
                .clientName("sluice");
        String userInfo = config.userInfo();
        if (userInfo != null) {
            int colon = userInfo.indexOf(':');
            if (colon < 0) {
                b.password(userInfo);
            } else {
                if (colon > 0) {
                    b.user(userInfo.substring(0, colon));
                }
                b.password(userInfo.substring(colon + 1));
            }
        }
        String host = config.host();
        String described =
                (config.tls() ? "rediss://" : "redis://") + (host.indexOf(':') >= 0 ? "[" + host + "]" : host) + ":"
                        + config.port() + (config.database() != 0 ? "/" + config.database() : "");
        return new RedisBackend(new HostAndPort(host, config.port()), b.build(), described);
    }

    /** The store for a Redis config: shared limits in Redis, leased and fallen back as configured. */
    public static QuotaStore store(StoreConfig config) {
        return QuotaStore.shared(of(config), config.instances(), config.leaseChunk());
    }

    @Override
    public SyncReply sync(SyncRequest request) {
        List<String> keys = new ArrayList<>(request.entries().size() + 1);
        List<String> args = new ArrayList<>(4 + request.entries().size() * 8);
        keys.add(ALIVE_KEY);
        args.add(request.instanceId());
        args.add(Long.toString(request.aliveMillis()));
        args.add(Integer.toString(request.entries().size()));
        args.add(Integer.toString(request.groups().size()));
        for (SyncRequest.Entry e : request.entries()) {
            keys.add(BUCKET_PREFIX + e.key);
            args.add(String.valueOf(e.kind));
            args.add(Long.toString(e.capacity));
            switch (e.kind) {
                case SyncRequest.TOKEN:
                    args.add(Long.toString(e.windowMillis));
                    args.add(Long.toString(e.ceiling));
                    args.add(Long.toString(e.adjust()));
                    break;
                case SyncRequest.WINDOW:
                    args.add(Long.toString(e.windowId));
                    args.add(Long.toString(e.windowEndMillis));
                    args.add(Long.toString(e.adjust()));
                    break;
                default:
                    args.add("0");
                    args.add("0");
                    args.add(Long.toString(e.held()));
                    break;
            }
            args.add(Long.toString(e.lowerTo()));
            args.add(Long.toString(e.initialRoom()));
            args.add(e.holder);
        }
        for (SyncRequest.Group g : request.groups()) {
            args.add(Integer.toString(g.entries.length));
            for (int j = 0; j < g.entries.length; j++) {
                args.add(Integer.toString(g.entries[j] + 1));
                args.add(Long.toString(g.need[j]));
                args.add(Long.toString(g.extra[j]));
            }
        }
        return parse(eval(keys, args), request);
    }

    private Object eval(List<String> keys, List<String> args) {
        Jedis j = connection();
        try {
            calls.incrementAndGet();
            try {
                return j.evalsha(sha, keys, args);
            } catch (JedisNoScriptException restarted) {
                // Redis restarted and forgot the script: load it again, once
                calls.incrementAndGet();
                sha = j.scriptLoad(SCRIPT);
                calls.incrementAndGet();
                return j.evalsha(sha, keys, args);
            }
        } catch (RuntimeException e) {
            drop();
            throw e;
        }
    }

    private Jedis connection() {
        if (jedis == null) {
            Jedis j = new Jedis(address, clientConfig);
            try {
                calls.incrementAndGet();
                sha = j.scriptLoad(SCRIPT);
            } catch (RuntimeException e) {
                j.close();
                throw e;
            }
            jedis = j;
        }
        return jedis;
    }

    private void drop() {
        Jedis j = jedis;
        jedis = null;
        if (j != null) {
            try {
                j.close();
            } catch (RuntimeException ignored) {
                // broken anyway
            }
        }
    }

    private static SyncReply parse(Object raw, SyncRequest request) {
        List<?> top = (List<?>) raw;
        int live = (int) (long) (Long) top.get(0);
        List<?> roomList = (List<?>) top.get(1);
        long[] rooms = new long[request.entries().size()];
        for (int i = 0; i < rooms.length; i++) {
            rooms[i] = (Long) roomList.get(i);
        }
        List<?> groupList = (List<?>) top.get(2);
        int groups = request.groups().size();
        long[][] grants = new long[groups][];
        long[] waits = new long[groups];
        for (int g = 0; g < groups; g++) {
            List<?> res = (List<?>) groupList.get(g);
            waits[g] = (Long) res.get(1);
            if ((Long) res.get(0) == 1L) {
                long[] got = new long[request.groups().get(g).entries.length];
                for (int j = 0; j < got.length; j++) {
                    got[j] = (Long) res.get(j + 2);
                }
                grants[g] = got;
            }
        }
        return new SyncReply(live, rooms, grants, waits);
    }

    @Override
    public long calls() {
        return calls.get();
    }

    @Override
    public String describe() {
        return described;
    }

    @Override
    public void close() {
        drop();
    }

    private static String load(String name) {
        try (InputStream in = RedisBackend.class.getResourceAsStream(name)) {
            if (in == null) {
                throw new IllegalStateException("missing resource " + name);
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
