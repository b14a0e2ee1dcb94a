"""Date formats per language, where Django's own differ from what the pages should show
(FORMAT_MODULE_PATH). Languages without a module here use Django's formats."""
