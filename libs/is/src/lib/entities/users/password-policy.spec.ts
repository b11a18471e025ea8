import { checkPasswordStrength } from './password-policy';

describe('checkPasswordStrength (TTS defaults)', () => {
  it.each([
    ['Short1A', 'password_strength_min_length', { n: 8 }],
    ['alllowercase1', 'password_strength_uppercase', { n: 1 }],
    ['NoDigitsAtAll', 'password_strength_digits', { n: 1 }],
    [`A1${'x'.repeat(999)}`, 'password_strength_max_length', { n: 1000 }],
  ])('refuses %s with %s', (password, errorName, attributes) => {
    expect(() => checkPasswordStrength(password)).toThrow(expect.objectContaining({ errorName, attributes, code: 3 }));
  });

  it('accepts a password meeting every requirement, counting characters rather than bytes', () => {
    expect(() => checkPasswordStrength('Correct-Horse-9')).not.toThrow();
    expect(() => checkPasswordStrength('Ünïcödé1')).not.toThrow();
  });
});
