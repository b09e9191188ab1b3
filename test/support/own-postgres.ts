// The benchmarks start servers of their own too (a primary and its replica): one implementation for both.
export { OwnPostgres, postgresBin } from '../../bench/own-postgres';
