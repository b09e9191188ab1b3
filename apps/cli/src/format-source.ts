/**
 * Generated TypeScript formatted the way the repository is (its Prettier configuration), so it passes
 * `npm run lint` as written. Prettier is a development dependency: without it the source is kept as is.
 */
export async function formatSource(file: string, source: string): Promise<string> {
  let prettier: typeof import('prettier');
  try {
    prettier = await import('prettier');
  } catch {
    return source;
  }
  const options = await prettier.resolveConfig(file);
  return prettier.format(source, { ...options, filepath: file });
}
