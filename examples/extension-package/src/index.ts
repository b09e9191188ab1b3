export * from './yards.extension';
export * from './yards/yard.entity';
