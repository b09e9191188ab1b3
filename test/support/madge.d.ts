/** The part of madge's API the tests use (the package ships no types). */
declare module 'madge' {
  interface MadgeResult {
    /** Each file (relative to the base directory) with the files it imports. */
    obj(): Record<string, string[]>;
  }
  interface MadgeConfig {
    fileExtensions?: string[];
    excludeRegExp?: RegExp[];
    tsConfig?: string;
    baseDir?: string;
  }
  export default function madge(path: string, config?: MadgeConfig): Promise<MadgeResult>;
}
