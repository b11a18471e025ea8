import { ErrPasswordStrengthDigits, ErrPasswordStrengthMaxLength, ErrPasswordStrengthMinLength, ErrPasswordStrengthUppercase } from '../../errors';

/** TTS's default password requirements (`is.user-registration.password-requirements.*`). */
export const PASSWORD_REQUIREMENTS = { minLength: 8, maxLength: 1000, minUppercase: 1, minDigits: 1 } as const;

/** Refuses a password weaker than the requirements, with TTS's `password_strength_*` errors. */
export function checkPasswordStrength(password: string): void {
  const { minLength, maxLength, minUppercase, minDigits } = PASSWORD_REQUIREMENTS;
  const characters = [...password];
  if (characters.length < minLength) throw ErrPasswordStrengthMinLength.with({ n: minLength });
  if (characters.length > maxLength) throw ErrPasswordStrengthMaxLength.with({ n: maxLength });
  if (characters.filter((c) => /\p{Lu}/u.test(c)).length < minUppercase) throw ErrPasswordStrengthUppercase.with({ n: minUppercase });
  if (characters.filter((c) => /\p{Nd}/u.test(c)).length < minDigits) throw ErrPasswordStrengthDigits.with({ n: minDigits });
}
