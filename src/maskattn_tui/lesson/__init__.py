"""The lesson: the F12 figure as data, what each step shows, and the
chapter's verification experiments."""
