export { freePort } from '../../bench/ports';
