/** The Locker API's recipient phone: `+` then digits, at most 20 characters (the spec's order-creation rule). */
export const LOCKER_PHONE = /^\+\d+$/;
export const LOCKER_PHONE_MAX = 20;

export const isLockerPhone = (phone: string) => phone.length <= LOCKER_PHONE_MAX && LOCKER_PHONE.test(phone);
