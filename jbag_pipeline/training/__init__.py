"""Training a JSON-Bag value function from lake-shaped tables: trajectory bags -> winner prototypes -> selected
features (value_function.py). Above model/ and the SQL transforms; knows nothing of Dagster."""
