export * from './locations.extension';
export * from './location.entity';
