/** The enrolment tables live with the other tables (storage/enrolment-schema.ts). */
export * from '../storage/enrolment-schema.ts';
