import { Redis } from 'ioredis';

/** The Lua scripts of EndpointSendLeases, each run atomically. */

/**
 * Grants up to ARGV[2] of the endpoint's ARGV[1] leases, after dropping the expired ones, in one atomic
 * script on Redis's clock (so every worker shares it). Leases are members of a sorted set scored by their
 * expiry, named ARGV[4].1, ARGV[4].2…; returns how many were granted (0 when all are held).
 */
const ACQUIRE = `
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
local ttl = tonumber(ARGV[3])
local n = math.min(tonumber(ARGV[2]), tonumber(ARGV[1]) - redis.call('ZCARD', KEYS[1]))
if n <= 0 then return 0 end
local members = {}
for i = 1, n do
  members[#members + 1] = now + ttl
  members[#members + 1] = ARGV[4] .. '.' .. i
end
redis.call('ZADD', KEYS[1], unpack(members))
redis.call('PEXPIRE', KEYS[1], ttl)
return n`;

/**
 * Pushes the expiry of the leases still held and returns those that are gone: a lease that lapsed (Redis
 * unreachable for longer than LEASE_TTL_MS, or wiped) may already be another worker's, so it is not brought
 * back.
 */
const RENEW = `
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
local gone = {}
for i = 2, #ARGV do
  local expires = redis.call('ZSCORE', KEYS[1], ARGV[i])
  if expires and tonumber(expires) > now then
    redis.call('ZADD', KEYS[1], now + tonumber(ARGV[1]), ARGV[i])
  else
    gone[#gone + 1] = ARGV[i]
  end
end
redis.call('PEXPIRE', KEYS[1], ARGV[1])
return gone`;

/** A Redis connection with the lease scripts as commands. */
export type LeaseRedis = Redis & {
  acquireLeases(key: string, cap: number, want: number, ttl: number, base: string): Promise<number>;
  renewLeases(key: string, ttl: number, ...leases: string[]): Promise<string[]>;
};

export function withLeaseCommands(redis: Redis): LeaseRedis {
  redis.defineCommand('acquireLeases', { numberOfKeys: 1, lua: ACQUIRE });
  redis.defineCommand('renewLeases', { numberOfKeys: 1, lua: RENEW });
  return redis as LeaseRedis;
}
