import { API_KEY_PREFIX, RESTRICTED_KEY_PREFIX, generateApiKey, isWellFormedApiKey } from './api-key.format';

describe('API key format', () => {
  it('generates prefixed, well-formed, unique keys', () => {
    const keys = new Set(Array.from({ length: 200 }, generateApiKey));
    expect(keys.size).toBe(200);
    for (const key of keys) {
      expect(key.startsWith(API_KEY_PREFIX)).toBe(true);
      expect(key).toHaveLength(API_KEY_PREFIX.length + 36);
      expect(isWellFormedApiKey(key)).toBe(true);
    }
  });

  it('rejects a single-character typo through the checksum', () => {
    const key = generateApiKey();
    const i = API_KEY_PREFIX.length + 5;
    const typo = key.slice(0, i) + (key[i] === 'a' ? 'b' : 'a') + key.slice(i + 1);
    expect(isWellFormedApiKey(typo)).toBe(false);
  });

  it.each(['', 'wharf_live_', 'Bearer x', 'wharf_test_' + 'a'.repeat(36), generateApiKey() + 'x'])(
    'rejects %p',
    (key) => {
      expect(isWellFormedApiKey(key)).toBe(false);
    },
  );
});

describe('restricted API keys', () => {
  it('carry their own prefix and are well-formed like full keys', () => {
    const key = generateApiKey(RESTRICTED_KEY_PREFIX);
    expect(key.startsWith('wharf_rk_')).toBe(true);
    expect(key).toHaveLength(RESTRICTED_KEY_PREFIX.length + 36);
    expect(isWellFormedApiKey(key)).toBe(true);
    expect(isWellFormedApiKey(key.replace(RESTRICTED_KEY_PREFIX, 'wharf_xx_'))).toBe(false);
  });
});
