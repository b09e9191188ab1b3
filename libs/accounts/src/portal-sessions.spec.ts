import { portalSetCookie } from './portal-sessions.service';
import { PORTAL_COOKIE, portalCookie } from '@wharf/core';

describe('the portal cookie', () => {
  it('is found by name among the cookies of a Cookie header, and only by its name', () => {
    expect(portalCookie(`a=1; ${PORTAL_COOKIE}=abc_DEF-1; b=2`)).toBe('abc_DEF-1');
    expect(portalCookie(`${PORTAL_COOKIE}x=1; x${PORTAL_COOKIE}=2`)).toBeUndefined();
    expect(portalCookie(undefined)).toBeUndefined();
  });

  it('is HttpOnly, Secure, SameSite=None and Partitioned, for the whole api, as long as the session', () => {
    expect(portalSetCookie('v', 3599.7)).toBe(
      `${PORTAL_COOKIE}=v; Path=/; Max-Age=3599; HttpOnly; Secure; SameSite=None; Partitioned`,
    );
    expect(portalSetCookie('v', -5)).toContain('Max-Age=0;');
  });
});
