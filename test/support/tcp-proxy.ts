// The benchmark's delaying proxy is built on the same one: one implementation for both.
export { TcpProxy, type Link } from '../../bench/tcp-proxy';
