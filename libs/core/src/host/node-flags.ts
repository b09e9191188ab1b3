/**
 * Node flags the api process starts with, wherever it is launched (the CLI's `start`, `npm run start:api`,
 * the Dockerfile, docker-compose, bench:api); node-flags.spec.ts checks that every launcher passes them.
 *
 * `--max-semi-space-size=4`: under load V8 grows the young generation to its default maximum of two 16 MB
 * semi-spaces, the largest part of the api's peak RSS after the old generation. The api sends the JSON text
 * PostgreSQL built as bytes (JsonText.bytes), so its requests allocate little on the V8 heap and a quarter of
 * the default keeps scavenges about as rare as twice that did with string bodies. V8 reads it only when the
 * heap is set up, so unlike `--heap-growing-percent` (main.ts) it cannot be set from inside the process.
 *
 * `--no-allocation-site-pretenuring`: under load V8 may judge a request's objects long-lived (they outlive a
 * scavenge while the request waits on PostgreSQL) and allocate them straight into the old generation, which
 * then fills with garbage and costs a full GC every second or so; a request's objects belong in the young one.
 */
export const API_NODE_FLAGS = ['--max-semi-space-size=4', '--no-allocation-site-pretenuring'];
